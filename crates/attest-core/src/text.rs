//! Small text helpers shared by every answer writer.

/// Collapse whitespace runs to single spaces and cut to `limit` characters, marking a
/// cut with `…`.
pub fn clip(text: &str, limit: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= limit {
        return flat;
    }
    let cut: String = flat.chars().take(limit).collect();
    format!("{}…", cut.trim_end())
}

/// Format a number the way people write results: up to six significant digits,
/// trailing zeros removed, exponent notation only for very large or small values
/// (like C's `%g`).
pub fn fmt_g(v: f64) -> String {
    fmt_sig(v, 6)
}

/// [`fmt_g`] with a chosen number of significant digits.
pub fn fmt_sig(v: f64, digits: usize) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return "0".into();
    }
    let digits = digits.max(1);
    let exp = v.abs().log10().floor() as i32;
    // Round first: 9.999995 at 6 digits becomes 10.0000, whose exponent is one more.
    let sci = format!("{:.*e}", digits - 1, v);
    let (mantissa, e) = sci.split_once('e').unwrap_or((&sci, "0"));
    let e: i32 = e.parse().unwrap_or(exp);
    if e < -4 || e >= digits as i32 {
        let m = trim_zeros(mantissa);
        let sign = if e < 0 { '-' } else { '+' };
        return format!("{m}e{sign}{:02}", e.abs());
    }
    let decimals = (digits as i32 - 1 - e).max(0) as usize;
    trim_zeros(&format!("{v:.decimals$}"))
}

fn trim_zeros(s: &str) -> String {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s.to_string() }
}

/// `"1 run"` / `"3 runs"`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_matches_printf() {
        let cases = [
            (0.0642, "0.0642"),
            (2.18, "2.18"),
            (41287424.0, "4.12874e+07"),
            (0.0017, "0.0017"),
            (1e-5, "1e-05"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (9.9999996, "10"),
            (-0.5, "-0.5"),
            (0.98644179894, "0.986442"),
            (1e-9, "1e-09"),
        ];
        for (v, want) in cases {
            assert_eq!(fmt_g(v), want, "{v}");
        }
    }

    #[test]
    fn clip_marks_the_cut() {
        assert_eq!(clip("a  b\n c", 10), "a b c");
        assert_eq!(clip("abcdefghij", 4), "abcd…");
    }
}
