//! The `ssdlab` command. See `ssdlab --help` and the README.
//!
//! The command line lives here, on the binary side (`src/cli/`): the library knows
//! nothing of clap.

mod cli;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    if let Err(e) = cli::main_with(args) {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}
