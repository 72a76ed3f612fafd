//! `abi`: reads libraries exporting packed functions (built with abi, or with tvm-ffi's C++
//! export macros) and inspects their exports, writes typed Python stubs, or classifies the
//! changes between two builds. Exit status: 0 success (compatible), 1 breaking changes
//! (`diff`), 2 an error.

mod bindgen;
mod diff;
mod globals;
mod init_python;
mod inspect;
mod wheel;

// The reading code and the stub writer live in the library target (src/lib.rs), where the
// fuzz targets reach them; `crate::read` and `crate::stubs` name them here as before.
use abi_cli::{read, stubs};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// What `--help` says about loading, the one choice a user of an untrusted file makes.
const LOADING: &str = "LOADING: inspect, stubs, wheel, diff and bindgen read a library built with abi from \
    the file alone: no code of it runs. A library that publishes its metadata only as functions (one built with \
    tvm-ffi's C++ macros) is loaded by default and those functions called, which runs the library's code \
    (its initialisers first). On a file you do not trust, pass --no-load: it is then only read, and a \
    damaged or hostile file is one line on stderr and exit status 2. The libraries named by --load, and \
    libtvm_ffi with --globals, are always loaded.";

#[derive(Parser, Debug)]
#[command(
    name = "abi",
    version,
    about = "Inspect packed-function libraries, write Python stubs, diff two builds",
    after_help = LOADING
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Every export with its signature as Python reads it, docs, IREE record and raw signature;
    /// with --globals, the global functions the loaded libraries register too.
    #[command(after_help = LOADING)]
    Inspect {
        /// The shared library (optional with --globals).
        #[arg(required_unless_present = "globals")]
        lib: Option<PathBuf>,
        /// Print the metadata model as JSON.
        #[arg(long)]
        json: bool,
        /// Never load the library; fail if its metadata is only reachable by calling it. See LOADING.
        #[arg(long, conflicts_with_all = ["globals", "load"])]
        no_load: bool,
        /// With --globals: load this library first (repeatable), so that its global functions
        /// are registered; libtvm_ffi is loaded before it when ABI_TVM_FFI_LIBDIR or
        /// tvm-ffi-config names it.
        #[arg(long = "load", value_name = "LIB", requires = "globals")]
        load: Vec<PathBuf>,
        /// List the global functions whose names start with PREFIX (`testing.`), with their metadata.
        #[arg(long, value_name = "PREFIX")]
        globals: Option<String>,
    },
    /// Write DIR/NAME/__init__.py, __init__.pyi and py.typed for the library's exports and classes.
    #[command(after_help = LOADING)]
    Stubs {
        /// The shared library.
        lib: PathBuf,
        /// The Python package name.
        #[arg(long)]
        package: String,
        /// The folder to write the package into.
        #[arg(short, long)]
        out: PathBuf,
        /// Never load the library; fail if its metadata is only reachable by calling it. See LOADING.
        #[arg(long)]
        no_load: bool,
    },
    /// Write a `py3-none-<platform>` wheel holding the package `abi stubs` writes and the library.
    #[command(after_help = LOADING)]
    Wheel {
        /// The shared library.
        lib: PathBuf,
        /// The Python package (import) name.
        #[arg(long)]
        package: String,
        /// The version (PEP 440, normalised: 1.0, 1.0rc1, 1.0.post1).
        #[arg(long)]
        version: String,
        /// The distribution name pip installs (default: the package name).
        #[arg(long)]
        dist_name: Option<String>,
        /// A requirement beyond apache-tvm-ffi (repeatable), e.g. `numpy>=1.26`.
        #[arg(long = "requires", value_name = "SPEC")]
        requires: Vec<String>,
        /// `auto` (Linux: the oldest manylinux policy the library fits, else linux; macOS:
        /// `macosx_<version>_<arch>` from its minimum macOS; Windows: `win_amd64`), `linux`, or
        /// `manylinux_2_<minor>` / `manylinux2014` (refused when the library needs more).
        #[arg(long, default_value = "auto")]
        platform_tag: String,
        /// The folder to write the wheel into.
        #[arg(short, long)]
        out: PathBuf,
        /// Write the wheel of an editable install (`pip install -e`, PEP 660) of the crate in
        /// CRATE: it holds the package but not the library, which is loaded from LIB's
        /// absolute path (after `cargo build` in CRATE, a new process runs the new library).
        #[arg(long, value_name = "CRATE")]
        editable: Option<PathBuf>,
        /// Never load the library; fail if its metadata is only reachable by calling it. See LOADING.
        #[arg(long)]
        no_load: bool,
    },
    /// Make a crate folder pip-installable: write pyproject.toml, naming the abi-cli
    /// distribution's build backend.
    InitPython {
        /// The crate folder (holding Cargo.toml).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// The Python package (import) name (default: the crate name, `-` as `_`).
        #[arg(long)]
        package: Option<String>,
        /// The distribution name pip installs (default: the crate name).
        #[arg(long)]
        dist_name: Option<String>,
        /// Replace existing files.
        #[arg(long)]
        force: bool,
        /// Also write a CI workflow that builds the wheels on Linux, macOS and Windows,
        /// smoke-tests each there and publishes them on a tag (github:
        /// .github/workflows/wheels.yml and the script it runs, .github/abi_wheels.py).
        #[arg(long, value_enum, value_name = "SYSTEM")]
        ci: Option<init_python::ci::Ci>,
    },
    /// Write the wheel of the `abi-cli` distribution (the build tool pip installs): this
    /// `abi`, or BINARY, an `abi` executable of this version for any platform, with the
    /// PEP 517 backend `abi_cli.build` and the `abi` console script.
    ToolWheel {
        /// The `abi` executable to ship (default: this one).
        binary: Option<PathBuf>,
        /// `auto` (the tag the executable fits, read from it as `wheel` reads a library's),
        /// `linux`, or `manylinux_2_<minor>` / `manylinux2014` (refused when it needs more).
        #[arg(long, default_value = "auto")]
        platform_tag: String,
        /// The folder to write the wheel into.
        #[arg(short, long)]
        out: PathBuf,
    },
    /// Write Rust bindings (`#[abi_core::import]` declarations, typed object handles) to a
    /// library's exports and, with --globals, to the global functions it registers.
    #[command(after_help = LOADING)]
    Bindgen {
        /// The shared library (optional with --globals).
        #[arg(required_unless_present = "globals")]
        lib: Option<PathBuf>,
        /// The file (--module) or crate folder (--crate) to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Write a crate of this name: OUT/Cargo.toml and OUT/src/lib.rs.
        #[arg(long = "crate", value_name = "NAME", conflicts_with = "module", requires = "abi_core")]
        krate: Option<String>,
        /// Write one module file (the default).
        #[arg(long)]
        module: bool,
        /// The generated crate's abi-core dependency, as Cargo.toml writes it: a version
        /// (`0.1`) or a table (`{ path = "../abi/abi-core" }`, `{ git = "...", tag = "..." }`);
        /// required with --crate, and only with it.
        #[arg(long = "abi-core", value_name = "DEPENDENCY", requires = "krate")]
        abi_core: Option<String>,
        /// With --globals: load this library first (repeatable), so that its global functions
        /// are registered.
        #[arg(long = "load", value_name = "LIB", requires = "globals")]
        load: Vec<PathBuf>,
        /// Bind the global functions whose names start with PREFIX (`testing.`).
        #[arg(long, value_name = "PREFIX")]
        globals: Option<String>,
        /// Never load the library: read abi libraries' records from the file (C++ libraries,
        /// which publish metadata only as functions, are refused).
        #[arg(long, conflicts_with_all = ["globals", "load"])]
        no_load: bool,
    },
    /// Classify every change between two builds: exit 0 when compatible, 1 when breaking.
    #[command(after_help = LOADING)]
    Diff {
        /// The old build.
        old: PathBuf,
        /// The new build.
        new: PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Never load the libraries; fail if their metadata is only reachable by calling them. See LOADING.
        #[arg(long)]
        no_load: bool,
    },
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Inspect { lib, json, no_load, load, globals } => {
            let found = match &globals {
                Some(prefix) => {
                    globals::load(&[load, lib.clone().into_iter().collect()].concat())?;
                    Some(globals::read(prefix)?)
                }
                None => None,
            };
            let read = lib.as_deref().map(|lib| read::read(lib, !no_load)).transpose();
            let listing = if globals.is_some() { read.map_err(load_instead)? } else { read? };
            if let Some(listing) = &listing {
                warn(listing);
            }
            if json {
                emit(&pretty(&inspect::json(listing.as_ref(), found.as_deref())))?;
            } else {
                if let Some(listing) = &listing {
                    emit(&inspect::text(listing))?;
                }
                if let (Some(found), Some(prefix)) = (&found, &globals) {
                    emit(&inspect::globals_text(prefix, found, listing.is_some()))?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Stubs { lib, package, out, no_load } => {
            let listing = read::read(&lib, !no_load)?;
            for written in stubs::write(&listing, &package, &out)? {
                emit(&format!("wrote {}\n", written.display()))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Wheel { lib, package, version, dist_name, requires, platform_tag, out, editable, no_load } => {
            let listing = read::read(&lib, !no_load)?;
            let request = wheel::Request {
                package: &package,
                version: &version,
                dist_name: dist_name.as_deref(),
                requires: &requires,
                platform: &platform_tag.parse()?,
                editable: editable.as_deref(),
            };
            let written = wheel::write(&listing, &request, &out)?;
            // After the wheel is written: a run that fails says one line, its error.
            warn(&listing);
            for warning in &written.warnings {
                warning_line(warning);
            }
            emit(&format!("wrote {}\n", written.path.display()))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::ToolWheel { binary, platform_tag, out } => {
            let binary = match binary {
                Some(path) => path,
                None => std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?,
            };
            let written = wheel::write_tool(&binary, &platform_tag.parse()?, &out)?;
            for warning in &written.warnings {
                warning_line(warning);
            }
            emit(&format!("wrote {}\n", written.path.display()))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::InitPython { dir, package, dist_name, force, ci } => {
            let workflow = ci.map(|ci| init_python::ci::plan(&dir, ci, force)).transpose()?;
            // With --ci, a folder already made pip-installable keeps its pyproject.toml.
            let kept = workflow.is_some() && !force && dir.join("pyproject.toml").exists();
            let pyproject = if kept {
                Vec::new()
            } else {
                init_python::write(&dir, package.as_deref(), dist_name.as_deref(), force)?
            };
            for written in pyproject {
                emit(&format!("wrote {}\n", written.display()))?;
            }
            let ci_files = workflow.map(init_python::ci::write).transpose()?.unwrap_or_default();
            for written in &ci_files {
                emit(&format!("wrote {}\n", written.display()))?;
            }
            if let Some(workflow) = ci_files.first() {
                emit(&format!(
                    "the workflow runs when you push it to GitHub; what to set up first is in its header ({})\n",
                    workflow.display()
                ))?;
            }
            let old_backend = dir.join("abi_build.py");
            if old_backend.is_file() {
                warning_line(&format!(
                    "{} (the backend an older init-python wrote) is no longer used: the backend is abi_cli.build, which pip installs; delete the file",
                    old_backend.display()
                ));
            }
            // A path pip reads as a folder, never as a name to look up on PyPI.
            let folder =
                if dir.is_absolute() || dir.starts_with(".") { dir.clone() } else { PathBuf::from(".").join(&dir) };
            emit(&format!("{TOOL_NOT_PUBLISHED}\nnext: pip install {}\n", folder.display()))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bindgen { lib, out, krate, module: _, abi_core, load, globals, no_load } => {
            if let Some((name, dependency)) = krate.as_deref().zip(abi_core.as_deref()) {
                bindgen::check_crate(name, dependency)?;
            }
            let found = match &globals {
                Some(prefix) => {
                    globals::load(&[load.clone(), lib.clone().into_iter().collect()].concat())?;
                    Some(globals::read(prefix)?)
                }
                None => None,
            };
            let read = lib.as_deref().map(|lib| read::read(lib, !no_load)).transpose();
            let listing = if globals.is_some() { read.map_err(load_instead)? } else { read? };
            let file_classes = listing.as_ref().map(|l| l.classes.clone()).unwrap_or_default();
            let classes = |key: &str| {
                file_classes
                    .iter()
                    .find(|c| c.key == key)
                    .cloned()
                    .or_else(|| (!no_load).then(|| globals::reflect_class(key)).flatten())
            };
            let command = bindgen_command(&BindgenLine {
                lib: lib.as_deref(),
                globals: globals.as_deref(),
                load: &load,
                no_load,
                krate: krate.as_deref().zip(abi_core.as_deref()),
                out: &out,
            });
            let request = bindgen::Request {
                listing: listing.as_ref(),
                globals: globals.as_deref().zip(found.as_deref()),
                classes: &classes,
                command: &command,
            };
            let source = bindgen::module(&request)?;
            let krate = krate.as_deref().zip(abi_core.as_deref());
            for written in bindgen::write(&source, &out, krate)? {
                emit(&format!("wrote {}\n", written.display()))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Diff { old, new, json, no_load } => {
            let (old, new) = (read::read(&old, !no_load)?, read::read(&new, !no_load)?);
            let report = diff::diff(&old, &new);
            if json {
                emit(&pretty(&report.json()))?;
            } else {
                emit(&report.text())?;
            }
            Ok(if report.breaking() { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
    }
}

/// A library named as the one to bind (or inspect) alongside `--globals` that exports no
/// packed functions: it may only register globals, which is what `--load` is for.
fn load_instead(error: String) -> String {
    if error.contains(read::NO_PACKED_FUNCTIONS) {
        format!("{error}; to read only the global functions it registers, pass it with --load instead")
    } else {
        error
    }
}

/// What `init-python` says before `next:`: pip installs the build tool first, and finds it
/// only where the user puts its wheel.
const TOOL_NOT_PUBLISHED: &str = "abi-cli, the build tool pip installs first, is not on PyPI yet: write its wheel \
    with `abi tool-wheel -o DIR` and let pip find it with `--find-links DIR` (or PIP_FIND_LINKS=DIR)";

/// The arguments of one `abi bindgen` run, as its header repeats them.
struct BindgenLine<'a> {
    lib: Option<&'a Path>,
    globals: Option<&'a str>,
    load: &'a [PathBuf],
    no_load: bool,
    krate: Option<(&'a str, &'a str)>,
    out: &'a Path,
}

/// The command that regenerates the bindings, as the generated header names it: the flags
/// as given, each path as typed, except that an absolute one is its file name (the output
/// names no folder of this machine; such a command runs in the folder holding them).
fn bindgen_command(line: &BindgenLine<'_>) -> String {
    let path = |p: &Path| {
        let shown = match p.file_name() {
            Some(name) if p.is_absolute() => name.to_string_lossy().into_owned(),
            _ => p.display().to_string(),
        };
        shell_word(&shown)
    };
    let mut parts = vec!["abi bindgen".to_owned()];
    parts.extend(line.load.iter().map(|l| format!("--load {}", path(l))));
    parts.extend(line.lib.map(path));
    parts.extend(line.globals.map(|g| format!("--globals {}", shell_word(g))));
    if line.no_load {
        parts.push("--no-load".to_owned());
    }
    if let Some((name, abi_core)) = line.krate {
        parts.push(format!("--crate {} --abi-core {}", shell_word(name), shell_word(abi_core)));
    }
    parts.push(format!("-o {}", path(line.out)));
    parts.join(" ")
}

/// `word` as a POSIX shell reads it back: as is when it needs no quoting, else in single
/// quotes.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:@%+,".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Says on stderr what is wrong with a library that still reads (the exit status stays:
/// the library works for TVM FFI hosts, and a build split across crates may add the module
/// later).
fn warn(listing: &read::Listing) {
    if let Some(warning) = listing.iree_warning() {
        warning_line(&warning);
    }
}

/// Prints `warning` on stderr as one line, bounded and escaped as errors are (it may quote
/// a hostile file's names).
fn warning_line(warning: &str) {
    // Not eprintln!, which panics when stderr cannot be written.
    let _ = writeln!(std::io::stderr(), "abi: warning: {}", abi_cli::one_line(warning));
}

/// `v` as indented JSON, every control character in it escaped: serde_json escapes C0's
/// only, and a file's texts may hold C1 controls (a terminal runs `\u{9b}` as CSI), DEL
/// and line separators. Outside strings the text has only spaces and line breaks.
fn pretty(v: &serde_json::Value) -> String {
    let text = serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string());
    let mut out = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        if c != '\n' && (c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out.push('\n');
    out
}

/// Writes `text` to stdout: a closed pipe (`| head`) or a full disk is an error, not a
/// panic.
fn emit(text: &str) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()).map_err(|e| format!("cannot write the output: {e}"))
}

fn main() -> ExitCode {
    // Keeps the identity in the executable's bytes, where `abi tool-wheel` reads it.
    std::hint::black_box(abi_cli::IDENTITY.as_ptr());
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "abi: error: {}", abi_cli::one_line(&message));
            ExitCode::from(2)
        }
    }
}
