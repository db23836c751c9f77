//! Splitting a notebook cell into magics and code. Leading lines that start with `%` are
//! session commands (`%load f.fut`, `%gpus 2`, …); `%img` and `%plot2d` take the rest of
//! the cell as the expression to draw; whatever follows the leading magics is Futhark code.

/// One step of a cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// A session command line, without the `%`.
    Command(&'a str),
    /// `%img EXP`.
    Img(&'a str),
    /// `%plot2d EXP`.
    Plot2d(&'a str),
    /// Futhark code.
    Code(&'a str),
}

/// The steps of a cell, in order.
pub fn split(code: &str) -> Vec<Step<'_>> {
    let mut steps = Vec::new();
    let mut rest = code;
    loop {
        let trimmed = rest.trim_start();
        let Some(magic) = trimmed.strip_prefix('%') else {
            break;
        };
        let word_len = magic.find(char::is_whitespace).unwrap_or(magic.len());
        let word = &magic[..word_len];
        let after = &magic[word_len..];
        match drawing(word) {
            Some("img") => {
                steps.push(Step::Img(after.trim()));
                return steps;
            }
            Some(_) => {
                steps.push(Step::Plot2d(after.trim()));
                return steps;
            }
            None => {}
        }
        let line_end = magic.find('\n').unwrap_or(magic.len());
        steps.push(Step::Command(magic[..line_end].trim()));
        rest = &magic[line_end..];
    }
    if !rest.trim().is_empty() {
        steps.push(Step::Code(rest));
    }
    steps
}

/// The steps in the order they run: `%time` or `%profile` without an argument before code
/// reports on that code, as IPython's `%time` does, so it moves after the cell's code.
pub fn timed(steps: Vec<Step<'_>>) -> Vec<Step<'_>> {
    let has_code = steps
        .iter()
        .any(|s| matches!(s, Step::Code(_) | Step::Img(_) | Step::Plot2d(_)));
    if !has_code {
        return steps;
    }
    let after = |s: &Step<'_>| {
        matches!(s, Step::Command(line) if matches!(
            futhark_session::commands::parse(line, '%'),
            Ok(futhark_session::Command::Time(None) | futhark_session::Command::Profile)
        ))
    };
    let (later, mut now): (Vec<Step<'_>>, Vec<Step<'_>>) = steps.into_iter().partition(after);
    now.extend(later);
    now
}

/// `img` or `plot2d` if `word` names one of them (exactly or by a unique prefix among all
/// magics).
fn drawing(word: &str) -> Option<&'static str> {
    let all = names();
    if let Some(n) = all.iter().find(|n| **n == word) {
        return ["img", "plot2d"].into_iter().find(|d| d == n);
    }
    let matches: Vec<&&str> = all
        .iter()
        .filter(|n| !word.is_empty() && n.starts_with(word))
        .collect();
    match matches.as_slice() {
        [one] => ["img", "plot2d"].into_iter().find(|d| d == *one),
        _ => None,
    }
}

/// Magic names for completion: the session's commands plus the drawing ones.
pub fn names() -> Vec<&'static str> {
    let mut v = futhark_session::commands::names();
    v.extend(["img", "plot2d"]);
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_then_code() {
        assert_eq!(
            split("%gpus 2\n%time on\n1 + 2\n"),
            vec![
                Step::Command("gpus 2"),
                Step::Command("time on"),
                Step::Code("\n1 + 2\n")
            ]
        );
    }

    #[test]
    fn drawing_magics_take_the_rest() {
        assert_eq!(
            split("%img\nmap (\\i -> [i]) xs"),
            vec![Step::Img("map (\\i -> [i]) xs")]
        );
        assert_eq!(split("%plot2d ys"), vec![Step::Plot2d("ys")]);
    }

    #[test]
    fn time_without_argument_reports_on_the_cell() {
        assert_eq!(
            timed(split("%time\n%gpus 1\nmap (+1) xs")),
            vec![
                Step::Command("gpus 1"),
                Step::Code("\nmap (+1) xs"),
                Step::Command("time"),
            ]
        );
        // Alone, or switching timing on, it stays where it is.
        assert_eq!(timed(split("%time")), vec![Step::Command("time")]);
        assert_eq!(
            timed(split("%time on\n1")),
            vec![Step::Command("time on"), Step::Code("\n1")]
        );
    }

    #[test]
    fn plain_code_is_one_step() {
        assert_eq!(split("def x = 1"), vec![Step::Code("def x = 1")]);
        assert_eq!(split("   "), Vec::<Step>::new());
    }
}
