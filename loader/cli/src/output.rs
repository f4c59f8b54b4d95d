//! Human output: aligned columns, coloured when stdout is a terminal (and `NO_COLOR` is not
//! set), plain otherwise.

use std::io::{IsTerminal, Write};

use unicode_width::UnicodeWidthStr;

/// Colours, or none.
#[derive(Clone, Copy)]
pub struct Style {
    color: bool,
}

impl Style {
    /// Colours when stdout is a terminal.
    pub fn for_stdout() -> Self {
        Self {
            color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\u{1b}[{code}m{text}\u{1b}[0m")
        } else {
            text.to_owned()
        }
    }

    /// Good news.
    pub fn ok(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Bad news.
    pub fn bad(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// Needs attention.
    pub fn warn(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Less important.
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// A heading.
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
}

/// Prints rows with each column padded to its widest cell (in terminal columns).
pub fn table(indent: &str, rows: &[Vec<String>]) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| strip_ansi_width(cell))
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        let mut line = String::from(indent);
        for (c, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < row.len() {
                let pad = widths[c].saturating_sub(strip_ansi_width(cell)) + 2;
                line.push_str(&" ".repeat(pad));
            }
        }
        outln!("{}", line.trim_end());
    }
}

fn strip_ansi_width(text: &str) -> usize {
    agent_hooks::status_line::sanitize(text).width()
}

/// A path shown relative to `base` when it lies inside it.
pub fn short_path(path: &std::path::Path, base: &std::path::Path) -> String {
    path.strip_prefix(base)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// `text` with the paths under `base` written relative to it, for people.
pub fn relative_text(text: &str, base: &std::path::Path) -> String {
    let prefix = format!("{}/", base.display());
    text.replace(&prefix, "").replace("/./", "/")
}

/// `text` with each line after the first indented by `indent`, so that a message of several
/// lines (a factory's error) stays under the item it belongs to.
pub fn indent_continuation(text: &str, indent: &str) -> String {
    text.replace('\n', &format!("\n{indent}"))
}

/// The exit status of a program ended by SIGPIPE, as a shell reports it (128 + 13).
const BROKEN_PIPE_STATUS: i32 = 141;

/// Writes a line to stdout. When the reader has gone (`agent-hooks list | head -1`), the
/// program ends at once and quietly, with the status other Unix tools end with there; any
/// other write error is reported on stderr and ends the program with status 2.
pub fn write_line(line: std::fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = writeln!(stdout, "{line}") {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(BROKEN_PIPE_STATUS);
        }
        eprintln!("agent-hooks: cannot write the output: {error}");
        std::process::exit(2);
    }
}

/// Levenshtein distance over characters (for "did you mean" suggestions).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}
