# Sourced by the scripts that use the apache-tvm-ffi wheel in the project venv (to compile
# C++ against it, or to load its libtvm_ffi): sets `config`, `includedir`, `dlpackdir` and
# `libdir`, or exits naming the setup step. Not a test script itself (scripts/test.sh runs scripts/test-*.sh).
config=.venv/bin/tvm-ffi-config
if [ ! -x "$config" ]; then
  echo "error: $config is missing; run scripts/setup-venv.sh first" >&2
  exit 1
fi
includedir=$("$config" --includedir)
dlpackdir=$("$config" --dlpack-includedir)
libdir=$("$config" --libdir)
