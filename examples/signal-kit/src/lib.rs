//! Signal-processing kit (in progress).
