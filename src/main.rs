//! The `ssdlab` command. See `ssdlab --help` and the README.

use clap::Parser;

fn main() {
    let cli = ssdlab::cli::Cli::parse();
    if let Err(e) = ssdlab::cli::main_with(cli) {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}
