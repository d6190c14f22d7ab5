//! Report output formats behind one trait: each format's file (`json.rs`, `fio.rs`,
//! `csv_out.rs`, `text.rs`) exports a [`Renderer`] and [`RENDERERS`] lists them, one line
//! each. A front end picks a renderer by name and writes what it renders, so adding an
//! output format is its file and its line here.
//!
//! A renderer turns the reports of one or more designs (named) into bytes; where the
//! bytes go (a file written atomically, standard output, a batch committed all or
//! nothing) is `output.rs`'s business, not the renderer's.

use super::Report;
use std::io::{self, Write};

/// One report output format.
pub trait Renderer: Sync {
    /// Its name (`json`, `csv`, …), as front ends select it.
    fn name(&self) -> &'static str;
    /// One line for listings and `--help`.
    fn summary(&self) -> &'static str;
    /// The extension of a file in this format, without the dot.
    fn extension(&self) -> &'static str;
    /// Writes the reports of `designs` (name, report; one or more) to `w`.
    fn render(&self, designs: &[(&str, &Report)], w: &mut dyn Write) -> io::Result<()>;

    /// [`Renderer::render`] into memory.
    fn render_bytes(&self, designs: &[(&str, &Report)]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        self.render(designs, &mut out)?;
        Ok(out)
    }
}

/// The registry of report output formats: one line per format, whose file exports it.
pub static RENDERERS: [&dyn Renderer; 4] = [
    &super::json::JSON,
    &super::fio::FIO_JSON,
    &super::csv_out::CSV,
    &super::text::TEXT,
];

/// The renderer named `name`.
pub fn renderer(name: &str) -> Option<&'static dyn Renderer> {
    RENDERERS.iter().copied().find(|r| r.name() == name)
}

/// Every renderer's name and summary, for listings.
pub fn names() -> Vec<(&'static str, &'static str)> {
    RENDERERS.iter().map(|r| (r.name(), r.summary())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for r in RENDERERS {
            assert_eq!(renderer(r.name()).map(|x| x.name()), Some(r.name()));
            assert_eq!(RENDERERS.iter().filter(|x| x.name() == r.name()).count(), 1);
            assert!(!r.summary().is_empty() && !r.extension().is_empty());
        }
    }
}
