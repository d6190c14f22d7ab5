//! The `ssdlab` command. See `ssdlab --help` and the README.
//!
//! The command line lives here, on the binary side (`src/cli/`): the library knows
//! nothing of clap.

mod cli;

fn main() {
    if let Err(e) = cli::parse().and_then(cli::main_with) {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}
