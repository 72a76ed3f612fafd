//! `abi`: reads libraries exporting packed functions (built with abi, or with tvm-ffi's C++
//! export macros) and inspects their exports, writes typed Python stubs, or classifies the
//! changes between two builds. Exit status: 0 success (compatible), 1 breaking changes
//! (`diff`), 2 an error.

mod diff;
mod init_python;
mod inspect;
mod wheel;

// The reading code and the stub writer live in the library target (src/lib.rs), where the
// fuzz targets reach them; `crate::read` and `crate::stubs` name them here as before.
use abi_cli::{read, stubs};

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// What `--help` says about loading, the one choice a user of an untrusted file makes.
const LOADING: &str = "LOADING: inspect, stubs, wheel and diff read a library built with abi from the file \
    alone: no code of it runs. A library that publishes its metadata only as functions (one built with \
    tvm-ffi's C++ macros) is loaded by default and those functions called, which runs the library's code \
    (its initialisers first). On a file you do not trust, pass --no-load: it is then only read, and a \
    damaged or hostile file is one line on stderr and exit status 2.";

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
    /// Every export with its signature as Python reads it, docs, IREE record and raw signature.
    #[command(after_help = LOADING)]
    Inspect {
        /// The shared library.
        lib: PathBuf,
        /// Print the metadata model as JSON.
        #[arg(long)]
        json: bool,
        /// Never load the library; fail if its metadata is only reachable by calling it. See LOADING.
        #[arg(long)]
        no_load: bool,
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
        /// Never load the library; fail if its metadata is only reachable by calling it. See LOADING.
        #[arg(long)]
        no_load: bool,
    },
    /// Make a crate folder pip-installable: write pyproject.toml and its build backend (abi_build.py).
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
        Command::Inspect { lib, json, no_load } => {
            let listing = read::read(&lib, !no_load)?;
            warn(&listing);
            if json {
                println!("{}", pretty(&inspect::json(&listing)));
            } else {
                print!("{}", inspect::text(&listing));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Stubs { lib, package, out, no_load } => {
            let listing = read::read(&lib, !no_load)?;
            for written in stubs::write(&listing, &package, &out)? {
                println!("wrote {}", written.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Wheel { lib, package, version, dist_name, requires, platform_tag, out, no_load } => {
            let listing = read::read(&lib, !no_load)?;
            warn(&listing);
            let request = wheel::Request {
                package: &package,
                version: &version,
                dist_name: dist_name.as_deref(),
                requires: &requires,
                platform: &platform_tag.parse()?,
            };
            let written = wheel::write(&listing, &request, &out)?;
            for warning in &written.warnings {
                eprintln!("abi: warning: {warning}");
            }
            println!("wrote {}", written.path.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::InitPython { dir, package, dist_name, force } => {
            for written in init_python::write(&dir, package.as_deref(), dist_name.as_deref(), force)? {
                println!("wrote {}", written.display());
            }
            // A path pip reads as a folder, never as a name to look up on PyPI.
            let folder =
                if dir.is_absolute() || dir.starts_with(".") { dir.clone() } else { PathBuf::from(".").join(&dir) };
            println!("next: pip install {}", folder.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Diff { old, new, json, no_load } => {
            let (old, new) = (read::read(&old, !no_load)?, read::read(&new, !no_load)?);
            let report = diff::diff(&old, &new);
            if json {
                println!("{}", pretty(&report.json()));
            } else {
                print!("{}", report.text());
            }
            Ok(if report.breaking() { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
    }
}

/// Says on stderr what is wrong with a library that still reads (the exit status stays:
/// the library works for TVM FFI hosts, and a build split across crates may add the module
/// later).
fn warn(listing: &read::Listing) {
    if let Some(warning) = listing.iree_warning() {
        eprintln!("abi: warning: {warning}");
    }
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("abi: error: {}", abi_cli::one_line(&message));
            ExitCode::from(2)
        }
    }
}
