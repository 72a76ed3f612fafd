//! A stateful class a Python user would want: running statistics (count, mean, variance,
//! min, max) over values fed in chunks, for example numpy arrays too large to hold at once.
//! One Rust struct becomes the tvm-ffi class `stats.RunningStats`; its state is updated in
//! one pass per chunk (Welford's algorithm) and accumulators merge exactly (Chan et al.),
//! so chunks can be summarised in parallel and combined.

use std::sync::Mutex;

use abi_core::{Element, Error, Obj, Result, TensorView};

/// The accumulated moments: the whole state of a [`RunningStats`].
#[derive(Debug, Clone, Copy, PartialEq)]
struct Moments {
    count: u64,
    mean: f64,
    /// Sum of squared differences from the mean.
    m2: f64,
    min: f64,
    max: f64,
}

impl Moments {
    const EMPTY: Moments = Moments { count: 0, mean: 0.0, m2: 0.0, min: f64::INFINITY, max: f64::NEG_INFINITY };

    fn push(&mut self, x: f64) {
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    /// The moments of both inputs' values together.
    fn merge(self, other: Moments) -> Moments {
        if other.count == 0 {
            return self;
        }
        if self.count == 0 {
            return other;
        }
        let count = self.count + other.count;
        let delta = other.mean - self.mean;
        let mean = self.mean + delta * other.count as f64 / count as f64;
        let m2 = self.m2 + other.m2 + delta * delta * (self.count as f64 * other.count as f64 / count as f64);
        Moments { count, mean, m2, min: self.min.min(other.min), max: self.max.max(other.max) }
    }
}

/// Running statistics over every value pushed so far.
#[derive(abi_core::Object, Debug)]
#[abi(type_key = "stats.RunningStats")]
pub struct RunningStats {
    /// A label for reports.
    #[abi(get)]
    pub name: String,
    /// Values equal to NaN are skipped and counted here when true, refused when false.
    #[abi(get)]
    pub skip_nan: bool,
    // Objects are shared by every holder and thread: the state sits behind a lock.
    moments: Mutex<Moments>,
}

#[abi_core::methods]
impl RunningStats {
    /// An empty accumulator (Python: `RunningStats("latency", True)`).
    #[abi(init)]
    pub fn new(name: String, skip_nan: bool) -> RunningStats {
        RunningStats { name, skip_nan, moments: Mutex::new(Moments::EMPTY) }
    }

    /// Adds every element of an array of floats or integers (any shape, C-contiguous);
    /// returns how many values were added.
    pub fn push(&self, values: TensorView<'_>) -> Result<i64> {
        let mut chunk = Moments::EMPTY;
        let mut add = |x: f64| -> Result<()> {
            if x.is_nan() {
                if self.skip_nan {
                    return Ok(());
                }
                return Err(Error::value_error(format!("{}: NaN in the input (skip_nan is off)", self.name)));
            }
            chunk.push(x);
            Ok(())
        };
        let dtype = values.dtype();
        if dtype == f64::DTYPE {
            values.as_slice::<f64>()?.iter().try_for_each(|&x| add(x))?;
        } else if dtype == f32::DTYPE {
            values.as_slice::<f32>()?.iter().try_for_each(|&x| add(x.into()))?;
        } else if dtype == i64::DTYPE {
            values.as_slice::<i64>()?.iter().try_for_each(|&x| add(x as f64))?;
        } else if dtype == i32::DTYPE {
            values.as_slice::<i32>()?.iter().try_for_each(|&x| add(x.into()))?;
        } else {
            return Err(Error::type_error(format!("push needs float32/64 or int32/64 values, got {dtype}")));
        }
        // A chunk is summarised without the lock, then merged in one step.
        let mut moments = self.lock();
        *moments = moments.merge(chunk);
        Ok(chunk.count as i64)
    }

    /// Adds one value.
    pub fn push_value(&self, x: f64) -> Result<i64> {
        if x.is_nan() && !self.skip_nan {
            return Err(Error::value_error(format!("{}: NaN in the input (skip_nan is off)", self.name)));
        }
        if !x.is_nan() {
            self.lock().push(x);
        }
        Ok(i64::from(!x.is_nan()))
    }

    /// How many values were added.
    pub fn count(&self) -> i64 {
        self.lock().count as i64
    }

    /// The mean (ValueError when empty).
    pub fn mean(&self) -> Result<f64> {
        let m = self.nonempty(1)?;
        Ok(m.mean)
    }

    /// The sample variance (ValueError with fewer than two values).
    pub fn variance(&self) -> Result<f64> {
        let m = self.nonempty(2)?;
        Ok(m.m2 / (m.count - 1) as f64)
    }

    /// The sample standard deviation.
    pub fn std(&self) -> Result<f64> {
        Ok(self.variance()?.sqrt())
    }

    /// The smallest value (ValueError when empty).
    pub fn min(&self) -> Result<f64> {
        Ok(self.nonempty(1)?.min)
    }

    /// The largest value (ValueError when empty).
    pub fn max(&self) -> Result<f64> {
        Ok(self.nonempty(1)?.max)
    }

    /// Adds everything `other` has seen, as if its values had been pushed here.
    pub fn merge(&self, other: &RunningStats) {
        let theirs = *other.lock(); // copied first: merging an accumulator into itself works
        let mut ours = self.lock();
        *ours = ours.merge(theirs);
    }

    /// Forgets every value.
    pub fn reset(&self) {
        *self.lock() = Moments::EMPTY;
    }

    /// A one-line report.
    pub fn summary(&self) -> String {
        let m = *self.lock();
        if m.count == 0 {
            return format!("{}: no values", self.name);
        }
        let std = if m.count > 1 { (m.m2 / (m.count - 1) as f64).sqrt() } else { 0.0 };
        format!("{}: n={} mean={:.4} std={:.4} min={} max={}", self.name, m.count, m.mean, std, m.min, m.max)
    }
}

impl RunningStats {
    fn lock(&self) -> std::sync::MutexGuard<'_, Moments> {
        // A panic while holding the lock leaves whole moments (every update is one store).
        self.moments.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn nonempty(&self, at_least: u64) -> Result<Moments> {
        let m = *self.lock();
        if m.count < at_least {
            let need = if at_least == 1 { "a value" } else { "two values" };
            return Err(Error::value_error(format!("{}: needs at least {need}, has {}", self.name, m.count)));
        }
        Ok(m)
    }
}

/// Statistics of one array in one call.
#[abi_core::export_fn]
pub fn describe(name: &str, values: TensorView<'_>) -> Result<Obj<RunningStats>> {
    let stats = RunningStats::new(name.into(), false);
    stats.push(values)?;
    Ok(Obj::new(stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use abi_core::Tensor;

    fn moments(values: &[f64]) -> Moments {
        let mut m = Moments::EMPTY;
        values.iter().for_each(|&x| m.push(x));
        m
    }

    #[test]
    fn welford_matches_the_two_pass_formulas() {
        let values = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        let m = moments(&values);
        let mean = values.iter().sum::<f64>() / 8.0;
        let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 7.0;
        assert_eq!(m.mean, mean);
        assert!((m.m2 / 7.0 - var).abs() < 1e-12);
        assert_eq!((m.min, m.max), (2.0, 9.0));
    }

    #[test]
    fn merging_chunks_equals_pushing_everything() {
        let values: Vec<f64> = (0..100).map(|i| ((i * 37) % 11) as f64 * 0.5 - 1.0).collect();
        let whole = moments(&values);
        let (a, b) = values.split_at(37);
        let merged = moments(a).merge(moments(b));
        assert_eq!(merged.count, whole.count);
        assert!((merged.mean - whole.mean).abs() < 1e-12);
        assert!((merged.m2 - whole.m2).abs() < 1e-9);
        assert_eq!(Moments::EMPTY.merge(whole), whole);
        assert_eq!(whole.merge(Moments::EMPTY), whole);
    }

    #[test]
    fn an_accumulator_merges_into_itself() {
        let s = RunningStats::new("s".into(), false);
        s.push(Tensor::from_vec(vec![1.0f64, 3.0], &[2]).unwrap().view()).unwrap();
        s.merge(&s);
        assert_eq!(s.count(), 4);
        assert_eq!(s.mean().unwrap(), 2.0);
    }
}
