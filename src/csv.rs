//! CSV (RFC 4180), written and read in one place, pure and native-tested: the
//! charts' CSV exports (`ui::chart::plot`) and the lab's CSV export and import
//! (`gpu::export`) quote fields with the same rule, and the reader takes back
//! everything the writer writes, line breaks inside quoted fields included (a
//! failed variant's detail may be a multi-line compiler message).

/// One field, quoted when it holds a comma, a quote or a line break (quotes
/// doubled inside).
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One record: the fields quoted where needed, comma-separated, no line end.
pub fn record<S: AsRef<str>>(fields: &[S]) -> String {
    fields
        .iter()
        .map(|f| field(f.as_ref()))
        .collect::<Vec<_>>()
        .join(",")
}

/// A CSV document from a header and rows of fields, each line ended by `\n`.
pub fn document(header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut out = record(header);
    out.push('\n');
    for r in rows {
        out.push_str(&record(&r));
        out.push('\n');
    }
    out
}

/// The records of `text`, each with the 1-based line it starts on. Records end
/// at `\n` or `\r\n` outside quotes; a quoted field may hold commas, doubled
/// quotes and line breaks. Empty lines are skipped.
pub fn records(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut prev_quote = false;
    let mut line = 1;
    let mut start = 1;
    let mut empty = true;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let after_quote = std::mem::take(&mut prev_quote);
        match (c, quoted) {
            ('"', true) => {
                quoted = false;
                prev_quote = true;
            }
            ('"', false) => {
                if after_quote {
                    // a doubled quote inside a quoted field
                    if let Some(f) = fields.last_mut() {
                        f.push('"');
                    }
                }
                quoted = true;
                empty = false;
            }
            (',', false) => {
                fields.push(String::new());
                empty = false;
            }
            ('\r', false) if chars.peek() == Some(&'\n') => {}
            ('\n', false) => {
                if !empty {
                    out.push((start, std::mem::replace(&mut fields, vec![String::new()])));
                }
                line += 1;
                start = line;
                empty = true;
            }
            (c, _) => {
                if c == '\n' {
                    line += 1;
                }
                if let Some(f) = fields.last_mut() {
                    f.push(c);
                }
                empty = false;
            }
        }
    }
    if !empty {
        out.push((start, fields));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        assert_eq!(field("plain 1.5e-3"), "plain 1.5e-3");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(field("cr\rlf"), "\"cr\rlf\"");
        assert_eq!(field(""), "");
    }

    #[test]
    fn what_is_written_reads_back() {
        let rows = vec![
            vec!["1".to_string(), "plain".into(), String::new()],
            vec![
                "2".to_string(),
                "error: line 3:\n  x = y,\n  \"bad\" token".into(),
                "a,b".into(),
            ],
            vec!["3".to_string(), "\"\"".into(), "trailing\n".into()],
            vec!["4".to_string(), "\r\n".into(), ",".into()],
        ];
        let text = document(&["n", "text", "more"], rows.clone());
        let back = records(&text);
        let mut want = vec![vec!["n".to_string(), "text".into(), "more".into()]];
        want.extend(rows);
        assert_eq!(
            back.iter().map(|(_, r)| r.clone()).collect::<Vec<_>>(),
            want
        );
        // each record with the line it starts on
        let starts: Vec<usize> = back.iter().map(|(l, _)| *l).collect();
        assert_eq!(starts, [1, 2, 3, 6, 8]);
    }

    #[test]
    fn reads_crlf_and_skips_empty_lines() {
        let back = records("a,b\r\n\r\n\"x\ny\",z\r\n\n");
        assert_eq!(
            back,
            [
                (1, vec!["a".to_string(), "b".into()]),
                (3, vec!["x\ny".to_string(), "z".into()]),
            ]
        );
        // an unquoted record keeps its empty fields
        assert_eq!(records(",\n"), [(1, vec![String::new(), String::new()])]);
    }
}
