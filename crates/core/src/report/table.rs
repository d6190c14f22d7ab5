//! The tables every output writes, in one place (issue 32: "a report output … with no
//! renderer trait, so sweep, reproduce and Python each wire it again"): an aligned text
//! table (the report's text form, `ssdlab hybrid`'s table), CSV text (sweep tables,
//! reproduction outputs, hybrid results) and a Markdown table (reproduction summaries).
//!
//! ```text
//! aligned:  width of a column = its widest cell in chars (`µs` is two); cells joined by
//!           two spaces, left- or right-aligned per column; a rule of dashes under the
//!           header; no trailing spaces
//! csv:      header record, then the rows, fields quoted as needed (the csv crate)
//! markdown: | h1 | h2 |, |---|---|, then | c1 | c2 | per row
//! ```

/// Column alignment in a [`Table`].
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Align {
    /// Padded on the right.
    Left,
    /// Padded on the left.
    Right,
}

/// One line of a [`Table`].
pub(crate) enum Line {
    /// A sub-heading spanning the table.
    Section(String),
    /// A row of cells.
    Cells(Vec<String>),
}

/// A minimal column-aligned table: widths from the widest cell (counted in chars, so
/// `µs` counts as two columns, as terminals show it), two spaces between columns.
pub(crate) struct Table {
    pub(crate) header: Option<Vec<String>>,
    align: Vec<Align>,
    pub(crate) lines: Vec<Line>,
}

impl Table {
    /// A table of `align.len()` columns, no header.
    pub(crate) fn new(align: Vec<Align>) -> Self {
        Table {
            header: None,
            align,
            lines: Vec::new(),
        }
    }

    /// A table whose columns are headed by `header`.
    pub(crate) fn headed(align: Vec<Align>, header: &[&str]) -> Self {
        Table {
            header: Some(header.iter().map(|h| h.to_string()).collect()),
            ..Table::new(align)
        }
    }

    /// Appends the table to `out`: the header and a rule under it, then the lines.
    pub(crate) fn render(&self, out: &mut String) {
        let ncol = self.align.len();
        let mut width = vec![0usize; ncol];
        let rows = self
            .header
            .iter()
            .chain(self.lines.iter().filter_map(|l| match l {
                Line::Cells(c) => Some(c),
                Line::Section(_) => None,
            }));
        for cells in rows {
            for (w, c) in width.iter_mut().zip(cells) {
                *w = (*w).max(c.chars().count());
            }
        }
        let fmt_row = |cells: &[String], out: &mut String| {
            let mut line = String::new();
            for (i, w) in width.iter().enumerate() {
                let c = cells.get(i).map(String::as_str).unwrap_or("");
                let pad = w.saturating_sub(c.chars().count());
                if i > 0 {
                    line.push_str("  ");
                }
                if self.align[i] == Align::Right {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(c);
                } else {
                    line.push_str(c);
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        };
        if let Some(h) = &self.header {
            fmt_row(h, out);
            let total = width.iter().sum::<usize>() + 2 * ncol.saturating_sub(1);
            out.push_str(&"-".repeat(total));
            out.push('\n');
        }
        for l in &self.lines {
            match l {
                Line::Section(s) => {
                    // A blank line before every section but a leading one groups rows
                    // visually without a box-drawing frame.
                    if !std::ptr::eq(l, &self.lines[0]) {
                        out.push('\n');
                    }
                    out.push_str(s);
                    out.push('\n');
                }
                Line::Cells(c) => fmt_row(c, out),
            }
        }
    }
}

/// An aligned text table: `header`, a rule, then `rows`; the first `left` columns
/// left-aligned, the others right-aligned.
pub fn aligned(header: Vec<String>, rows: Vec<Vec<String>>, left: usize) -> String {
    let align = (0..header.len())
        .map(|i| if i < left { Align::Left } else { Align::Right })
        .collect();
    let mut t = Table::new(align);
    t.header = Some(header);
    t.lines = rows.into_iter().map(Line::Cells).collect();
    let mut out = String::new();
    t.render(&mut out);
    out
}

/// CSV text: the `header` record, then each of `rows`, fields quoted as needed.
pub fn csv<H, R, F>(header: H, rows: impl IntoIterator<Item = R>) -> String
where
    H: IntoIterator,
    H::Item: AsRef<[u8]>,
    R: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    // Writing to memory cannot fail, and fields of UTF-8 text stay UTF-8.
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header).expect("in-memory CSV");
    for r in rows {
        w.write_record(r).expect("in-memory CSV");
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV of UTF-8 text")
}

/// A Markdown table from a header and rows.
pub fn markdown(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = String::new();
    s.push('|');
    for h in header {
        s.push_str(&format!(" {h} |"));
    }
    s.push_str("\n|");
    for _ in header {
        s.push_str("---|");
    }
    s.push('\n');
    for r in rows {
        s.push('|');
        for c in r {
            s.push_str(&format!(" {c} |"));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_pads_left_and_right_columns_and_rules_the_header() {
        let t = aligned(
            vec!["name".into(), "n".into()],
            vec![vec!["a".into(), "10".into()], vec!["bb".into(), "2".into()]],
            1,
        );
        assert_eq!(t, "name   n\n--------\na     10\nbb     2\n");
    }

    #[test]
    fn csv_quotes_fields_with_commas() {
        assert_eq!(csv(["a", "b"], [["1", "x,y"]]), "a,b\n1,\"x,y\"\n");
    }

    #[test]
    fn markdown_has_a_separator_row() {
        let t = markdown(&["x", "y"], &[vec!["1".into(), "2".into()]]);
        assert_eq!(t, "| x | y |\n|---|---|\n| 1 | 2 |\n");
    }
}
