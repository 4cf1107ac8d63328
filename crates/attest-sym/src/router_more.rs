//! What the router reads for the operations whose notation carries more than an
//! expression: a matrix, a limit (`\lim_{x\to a}`, "as x approaches a"), a Taylor
//! series (the point and the order), a sum (`\sum_{k=1}^{n}`, "for k from 1 to n",
//! "converge") and a system of equations. Each reader returns the routed tool's
//! arguments, or `None` when the question is not one of these (then the ordinary rules
//! decide). Every slice is taken at a char boundary: the router never panics.

use attest_core::ask::Args;
use attest_core::route::Question;
use serde_json::json;

/// The tool and arguments of a matrix, limit, series, sum or system question.
pub(crate) fn special(raw: &str, q: &Question, given: Option<&str>) -> Option<(&'static str, Args)> {
    matrix_claim(raw, given)
        .map(|a| ("sym.verify", a))
        .or_else(|| matrix(raw, q, given).map(|a| ("sym.matrix", a)))
        .or_else(|| limit(raw, q, given).map(|a| ("sym.limit", a)))
        .or_else(|| series(raw, q, given).map(|a| ("sym.series", a)))
        .or_else(|| sum(raw, q, given).map(|a| ("sym.sum", a)))
        .or_else(|| system(raw, q, given).map(|a| ("sym.solve", a)))
        .or_else(|| integral(raw, given).map(|a| ("sym.integrate", a)))
        .or_else(|| limit_in_words(raw, q, given).map(|a| ("sym.limit", a)))
}

/// The byte offset of `needle` (ASCII, lower case) in `hay`, matched ignoring ASCII case.
fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    hay.char_indices()
        .map(|(i, _)| i)
        .find(|&i| hay[i..].get(..needle.len()).is_some_and(|h| h.eq_ignore_ascii_case(needle)))
}

fn clean(s: &str) -> String {
    s.trim()
        .trim_start_matches('$')
        .trim_end_matches(['?', '!', ',', ';', ':', '$'])
        .trim_end_matches('.')
        .trim()
        .to_string()
}

/// A word of prose: two or more letters, not a function's name or a LaTeX command.
fn is_prose(w: &str) -> bool {
    let w = w.trim().trim_end_matches(['?', '!', ',', '.', ';', ':']);
    w.chars().count() >= 2
        && w.chars().all(char::is_alphabetic)
        && !crate::parse::KNOWN.contains(&w.to_lowercase().as_str())
}

/// LaTeX notation the tool reads whole (`\lim_{x \to 0} …`, `\sum_{k=1}^{n} …`), cut
/// where its body stops parsing ("… for me?"), when `read` takes it apart and its body
/// parses; `None` otherwise.
fn whole_notation<T>(text: &str, read: impl Fn(&str) -> Option<(String, T)>) -> Option<String> {
    let mut whole = clean(text);
    loop {
        if let Some((body, _)) = read(&whole)
            && parses(&clean(&body))
        {
            // The notation ends with its body ("… converge" is read off the body), and
            // before the words after it ("… for me": the parser would take them for
            // a product of letters).
            let body = clean(&body);
            let mut end = whole.rfind(&body).map_or(whole.len(), |at| at + body.len());
            while let Some(cut) = whole[..end].trim_end().rfind(char::is_whitespace)
                && is_prose(&whole[cut + 1..end])
            {
                end = cut;
            }
            return Some(clean(&whole[..end]));
        }
        let cut = whole.trim_end().rfind(char::is_whitespace)?;
        whole = clean(&whole[..cut]);
    }
}

fn parses(e: &str) -> bool {
    !e.is_empty() && crate::parse_expr(e, &crate::Limits::default()).is_ok()
}

#[derive(Debug)]
struct Tok<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

fn toks(raw: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in raw.char_indices().chain(std::iter::once((raw.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push(Tok { text: &raw[s..i], start: s, end: i });
                start = None;
            }
            _ => {}
        }
    }
    out
}

fn point_word(t: &str) -> String {
    let t = t.trim_matches('$').trim_end_matches(['?', '!', ',', ';', '.', '$']);
    match t.to_lowercase().as_str() {
        "infinity" | "∞" | "+∞" | "oo" | "+oo" | "inf" | "+infinity" | "\\infty" => "oo".into(),
        "-infinity" | "-∞" | "-oo" | "-inf" | "−∞" | "-\\infty" => "-oo".into(),
        "zero" => "0".into(),
        _ => t.to_string(),
    }
}

/// Words a matrix identity is written with besides its literals.
const MATRIX_WORDS: [&str; 8] = ["det", "inverse", "inv", "transpose", "trace", "tr", "i", "t"];

fn matrix_word(w: &str) -> bool {
    let core = w.trim_matches(|c: char| "()[]{},?.!:;".contains(c));
    w.chars().all(|c| "0123456789+-*/^(){}[],.&·×=\\ IT".contains(c))
        || MATRIX_WORDS.iter().any(|f| {
            core.eq_ignore_ascii_case(f)
                || core.get(..f.len()).is_some_and(|h| h.eq_ignore_ascii_case(f))
                    && core[f.len()..].starts_with(['(', '[', '^', '\\'])
        })
        || core.starts_with("\\begin")
        || core.starts_with("\\end")
        || core.starts_with("\\cdot")
        || core.starts_with("\\times")
        || core.starts_with('&')
}

/// "is det(A B) = det(A) det(B) for …", written with literal matrices on either side of
/// one `=`: the claim, for `sym.verify`.
fn matrix_claim(raw: &str, given: Option<&str>) -> Option<Args> {
    let text = [given.unwrap_or(""), raw].into_iter().find(|t| t.contains("[[") || t.contains("matrix}"))?;
    let (l, r) = crate::matexpr::split_claim(text)?;
    let lw = toks(l);
    let rw = toks(r);
    let from = lw.iter().rev().take_while(|t| matrix_word(t.text)).last()?.start;
    let to = rw.iter().take_while(|t| matrix_word(t.text)).last()?.end;
    let lhs = clean(&l[from..]);
    let rhs = clean(&r[..to]);
    if !crate::matexpr::is_matrix_claim(&lhs, &rhs) || !crate::matexpr::reads(&lhs) || !crate::matexpr::reads(&rhs) {
        return None;
    }
    let mut args = Args::new();
    args.insert("lhs".into(), json!(lhs));
    args.insert("rhs".into(), json!(rhs));
    Some(args)
}

fn matrix(raw: &str, q: &Question, given: Option<&str>) -> Option<Args> {
    let text = [given.unwrap_or(""), raw].into_iter().find(|t| t.contains("[[") || t.contains("matrix}"))?;
    let start = [text.find("[["), text.find("\\begin{")].into_iter().flatten().min()?;
    let end = [text.rfind("]]").map(|i| i + 2), text.rfind("matrix}").map(|i| i + 7)].into_iter().flatten().max()?;
    if end <= start {
        return None;
    }
    let mut args = Args::new();
    let mut expr = text[start..end].trim().to_string();
    let op =
        if q.any(&["eigenvalue", "eigenvalues", "eigen", "characteristic", "eigenvector", "eigenvectors"]).is_some() {
            Some("eigenvalues")
        } else if q.any(&["determinant", "det"]).is_some() {
            Some("determinant")
        } else if q.any(&["inverse", "invert", "inverted", "invertible", "singular"]).is_some() {
            Some("inverse")
        } else if q.has("rank") {
            Some("rank")
        } else if q.any(&["transpose", "transposed"]).is_some() {
            Some("transpose")
        } else if q.any(&["product", "multiply", "times", "multiplied"]).is_some() {
            Some("product")
        } else {
            None
        };
    // "multiply A by B", "A with B", "A times B": the product written as one.
    if op == Some("product") {
        for joiner in ["by", "with", "and", "times"] {
            for gap in [" ", "  "] {
                expr = expr.replace(&format!("]]{gap}{joiner}{gap}[["), "]] * [[");
            }
        }
    }
    args.insert("expr".into(), json!(expr));
    if let Some(op) = op {
        args.insert("operation".into(), json!(op));
    }
    Some(args)
}

fn limit(raw: &str, q: &Question, given: Option<&str>) -> Option<Args> {
    let mut args = Args::new();
    for text in [raw, given.unwrap_or("")] {
        // LaTeX's `\lim…` is the tool's own notation: passed whole.
        if let Some(p) = find_ci(text, "\\lim")
            && given.is_none()
            && let Some(whole) =
                whole_notation(&text[p..], |t| crate::limit::notation(t).map(|(body, v, _, _)| (body, v)))
        {
            args.insert("expr".into(), json!(whole));
            return Some(args);
        }
        if let Some(p) = find_ci(text, "\\lim").or_else(|| find_ci(text, "lim_"))
            && let Some((body, v, a, side)) = crate::limit::notation(&clean(&text[p..]))
        {
            let body = given.filter(|_| text == raw && body.is_empty()).map(str::to_string).unwrap_or(body);
            args.insert("expr".into(), json!(clean(&body)));
            args.insert("to".into(), crate::router::scalar(&a));
            args.insert("var".into(), json!(v));
            if let Some(s) = side {
                args.insert("direction".into(), json!(s));
            }
            return Some(args);
        }
    }
    q.any(&["limit", "lim", "limits"])?;
    let ts = toks(raw);
    // "lim x->0 F", "lim x→0 F"
    for (i, t) in ts.iter().enumerate() {
        if !t.text.eq_ignore_ascii_case("lim") {
            continue;
        }
        let Some(n) = ts.get(i + 1) else { continue };
        let Some((v, a)) = n.text.split_once("->").or_else(|| n.text.split_once('→')) else { continue };
        // "lim x->0 of F": the "of" is prose.
        let body = given.map(str::to_string).unwrap_or_else(|| {
            let b = strip_direction(&raw[n.end..]);
            b.strip_prefix("of ").map_or(b.clone(), |r| r.trim().to_string())
        });
        if v.chars().count() == 1 && v.chars().all(char::is_alphabetic) && !a.is_empty() && parses(&body) {
            args.insert("expr".into(), json!(body));
            args.insert("to".into(), crate::router::scalar(&point_word(a)));
            args.insert("var".into(), json!(v));
            return Some(args);
        }
    }
    // "as x approaches a", "as x -> a", "as x→a", "as x tends to a", "as x goes to a"
    let (as_i, var, point, after) = ts.iter().enumerate().find_map(|(i, t)| {
        if !t.text.eq_ignore_ascii_case("as") && !t.text.eq_ignore_ascii_case("when") {
            return None;
        }
        let v = ts.get(i + 1)?;
        for arrow in ["->", "→"] {
            if let Some((x, a)) = v.text.split_once(arrow) {
                if a.is_empty() {
                    let p = ts.get(i + 2)?;
                    return Some((i, x.to_string(), point_word(p.text), p.end));
                }
                return Some((i, x.to_string(), point_word(a), v.end));
            }
        }
        let w = ts.get(i + 2)?.text.to_lowercase();
        let skip = match w.as_str() {
            "->" | "→" | "approaches" | "approach" => 3,
            "tends" | "goes" | "going" | "tending" if ts.get(i + 3)?.text.eq_ignore_ascii_case("to") => 4,
            _ => return None,
        };
        let mut p = ts.get(i + skip)?;
        let mut point = point_word(p.text);
        if matches!(point.to_lowercase().as_str(), "negative" | "minus") {
            p = ts.get(i + skip + 1)?;
            point = format!("-{}", point_word(p.text));
        }
        Some((i, v.text.to_string(), point, p.end))
    })?;
    if var.chars().count() != 1 || !var.chars().all(char::is_alphabetic) {
        return None;
    }
    let expr = match given {
        Some(g) => g.to_string(),
        None => {
            let as_start = ts[as_i].start;
            let before = &raw[..as_start];
            match find_ci(before, "limit of").map(|p| p + 8).or_else(|| find_ci(before, "lim of").map(|p| p + 6)) {
                Some(p) => clean(&before[p..]),
                None => {
                    let rest = &raw[after..];
                    let of = find_ci(rest, "of ")?;
                    clean(&rest[of + 3..])
                }
            }
        }
    };
    let expr = strip_direction(&expr);
    if !parses(&expr) {
        return None;
    }
    args.insert("expr".into(), json!(expr));
    args.insert("to".into(), crate::router::scalar(&point));
    args.insert("var".into(), json!(var));
    if find_ci(raw, "from the left").is_some() || find_ci(raw, "from below").is_some() {
        args.insert("direction".into(), json!("left"));
    } else if find_ci(raw, "from the right").is_some() || find_ci(raw, "from above").is_some() {
        args.insert("direction".into(), json!("right"));
    }
    Some(args)
}

fn strip_direction(e: &str) -> String {
    let mut e = e.to_string();
    for m in ["from the left", "from the right", "from below", "from above"] {
        if let Some(p) = find_ci(&e, m) {
            e.truncate(p);
        }
    }
    clean(&e)
}

fn series(raw: &str, q: &Question, given: Option<&str>) -> Option<Args> {
    // A series named, or an expansion asked about a point or to an order ("series of F
    // around 0", "expand F about pi, order 5"): "expand (a+b)^3" alone is algebra.
    let cue = q.any(&["taylor", "maclaurin", "laurent", "power series", "series expansion"]).or_else(|| {
        let about = ["around", "about", "near"]
            .iter()
            .any(|w| q.find(w).and_then(|i| q.words.get(i + 1)).is_some_and(|n| parses(&point_word(&n.text))));
        let to_order = q.words.windows(2).any(|w| w[0].text == "order" && w[1].text.parse::<u32>().is_ok());
        (about || to_order).then(|| {
            q.any(&["series of", "expansion of", "terms of", "expand", "expanded", "series", "approximation"])
        })?
    })?;
    let ts = toks(raw);
    let mut args = Args::new();
    let stops = [
        " about ",
        " around ",
        " at ",
        " near ",
        " to order",
        " up to",
        " of order",
        " order ",
        " through ",
        ", ",
        " in powers",
        " in ",
        " to ",
    ];
    let by_cue = || -> Option<String> {
        let c = find_ci(raw, cue)? + cue.len();
        let rest = &raw[c..];
        // "series of F", "expand F": the expression follows the cue itself.
        let follows = cue.ends_with(" of") || cue == "expand";
        let start = if follows { Some(0) } else { None };
        match start.or_else(|| find_ci(rest, " of ").map(|p| p + 4)).or_else(|| find_ci(rest, " for ").map(|p| p + 5)) {
            Some(start) => {
                let body = &rest[start..];
                let end = stops.iter().filter_map(|s| find_ci(body, s)).min().unwrap_or(body.len());
                Some(clean(&body[..end]))
            }
            // "taylor-expand F around 1": the expression follows the verb.
            None if ["-expand ", " expand ", "-expansion ", " expansion "]
                .iter()
                .any(|v| rest.to_lowercase().starts_with(v)) =>
            {
                let body = &rest[(rest.len() - rest.trim_start().len()) + rest.trim_start().find(' ')? + 1..];
                let end = stops.iter().filter_map(|s| find_ci(body, s)).min().unwrap_or(body.len());
                Some(clean(&body[..end]))
            }
            // "expand F in a Taylor series", "write F as a power series"
            None => {
                let head = &raw[..find_ci(raw, cue)?];
                let lead =
                    ["expand ", "write ", "develop "].iter().find_map(|w| find_ci(head, w).map(|p| p + w.len()))?;
                let body = &head[lead..];
                let end =
                    [" in ", " as ", " into "].iter().filter_map(|s| find_ci(body, s)).min().unwrap_or(body.len());
                Some(clean(&body[..end]))
            }
        }
    };
    let expr = match given {
        Some(g) => g.to_string(),
        // Otherwise what is left of the question once the options (the point, the
        // order) are cut out: "taylor sqrt(1+x) order 5", "cos(theta) expanded about
        // pi/2 to order 4".
        None => by_cue().filter(|e| parses(e)).or_else(|| series_leftover(raw))?,
    };
    if !parses(&expr) {
        return None;
    }
    args.insert("expr".into(), json!(expr));
    if cue == "maclaurin" {
        args.insert("about".into(), json!(0));
    }
    for (i, t) in ts.iter().enumerate() {
        let w = t.text.to_lowercase();
        if matches!(w.as_str(), "about" | "around" | "near") || (w == "at" && !args.contains_key("about")) {
            let Some(n) = ts.get(i + 1) else { continue };
            let val = if let Some((_, v)) = n.text.split_once('=') {
                if v.is_empty() { ts.get(i + 2).map(|t| t.text).unwrap_or("") } else { v }
            } else if ts.get(i + 2).is_some_and(|t| t.text == "=") {
                ts.get(i + 3).map(|t| t.text).unwrap_or("")
            } else {
                n.text
            };
            let val = point_word(val);
            if parses(&val) {
                args.insert("about".into(), crate::router::scalar(&val));
            }
        }
        if w == "order" || w == "degree" {
            let n = ts.get(i + 1).map(|t| t.text.trim_end_matches(['?', ',', '.']))?;
            if let Ok(n) = n.parse::<u32>() {
                args.insert("order".into(), json!(if w == "degree" { n + 1 } else { n }));
            }
        }
        if matches!(w.as_str(), "up" | "through") {
            let k = if w == "up" { i + 2 } else { i + 1 };
            // "up to x^4": terms through x^4, order 5; "up to O(x^4)": order 4.
            let big_o = ts.get(k).is_some_and(|t| t.text.starts_with("O(") || t.text.starts_with("$O("));
            if let Some(p) = ts.get(k).and_then(|t| t.text.trim_end_matches(['?', ',', '.', '$']).split_once('^'))
                && let Ok(n) = p.1.trim_matches(['{', '}', '(', ')', '.', '$']).parse::<u32>()
            {
                args.insert("order".into(), json!(if big_o { n } else { n + 1 }));
            }
        }
    }
    Some(args)
}

fn sum(raw: &str, q: &Question, given: Option<&str>) -> Option<Args> {
    let mut args = Args::new();
    for text in [raw, given.unwrap_or("")] {
        // LaTeX's `\sum…` is the tool's own notation: passed whole.
        if let Some(p) = find_ci(text, "\\sum")
            && given.is_none()
            && let Some(whole) =
                whole_notation(&text[p..], |t| crate::sums::notation(t).map(|(body, k, _, _)| (strip_tail(&body), k)))
        {
            args.insert("expr".into(), json!(whole));
            return Some(args);
        }
        if let Some(p) = find_ci(text, "\\sum").or_else(|| find_ci(text, "sum_{")).or_else(|| text.find("Σ_{"))
            && let Some((body, k, a, b)) = crate::sums::notation(&clean(&text[p..]))
        {
            let body = strip_tail(&body);
            args.insert("expr".into(), json!(body));
            args.insert("var".into(), json!(k));
            args.insert("lower".into(), crate::router::scalar(&a));
            args.insert("upper".into(), crate::router::scalar(&b));
            return Some(args);
        }
    }
    let sigma = raw.contains('Σ') || raw.contains('∑');
    let cue =
        q.any(&["sum of", "sum", "series", "summation", "add up", "summed", "total of"]).or(sigma.then_some("Σ"))?;
    let converge = q.any(&["converge", "converges", "convergent", "diverge", "diverges", "divergent", "convergence"]);
    let ts = toks(raw);
    // Bounds: "from k = 1 to n", "for k from 1 to n", "k = 1 to n", "from 1 to infinity".
    let mut bounds: Option<(Option<String>, String, String, usize)> = None;
    for (i, t) in ts.iter().enumerate() {
        let w = t.text.to_lowercase();
        let read = |j: usize| -> Option<(Option<String>, String, usize)> {
            let a = ts.get(j)?;
            if let Some((k, v)) = a.text.split_once('=') {
                if v.is_empty() {
                    return Some((Some(k.to_string()), ts.get(j + 1)?.text.to_string(), j + 2));
                }
                return Some((Some(k.to_string()), v.to_string(), j + 1));
            }
            if ts.get(j + 1).is_some_and(|t| t.text == "=") {
                return Some((Some(a.text.to_string()), ts.get(j + 2)?.text.to_string(), j + 3));
            }
            Some((None, a.text.to_string(), j + 1))
        };
        let found = match w.as_str() {
            // "k from 1 to oo": the letter before "from" is the index.
            "from" => read(i + 1).map(|(k, a, j)| {
                let before = i.checked_sub(1).map(|p| ts[p].text.trim_matches(','));
                let named = before.filter(|b| b.chars().count() == 1 && b.chars().all(char::is_alphabetic));
                (k.or_else(|| named.map(str::to_string)), a, j)
            }),
            "for" if ts.get(i + 2).is_some_and(|t| t.text.eq_ignore_ascii_case("from")) => {
                read(i + 3).map(|(_, a, j)| (Some(ts[i + 1].text.to_string()), a, j))
            }
            "for" | "with" => read(i + 1).filter(|(k, _, _)| k.is_some()),
            _ => None,
        };
        if let Some((k, a, j)) = found
            && let Some(to) = ts.get(j)
            && (to.text.eq_ignore_ascii_case("to") || to.text == "..")
            && let Some(b) = ts.get(j + 1)
        {
            bounds = Some((k, a, point_word(b.text), t.start));
            break;
        }
    }
    // "k=1..n", "i=0..20": the index and both bounds in one piece.
    if bounds.is_none() {
        bounds = ts.iter().find_map(|t| {
            let w = t.text.trim_end_matches([',', '?', '.', ';']);
            let (k, range) = w.split_once('=')?;
            let (a, b) = range.split_once("..")?;
            (!k.is_empty() && !a.is_empty() && !b.is_empty())
                .then(|| (Some(k.to_string()), a.to_string(), point_word(b), t.start))
        });
    }
    if bounds.is_none() && converge.is_none() {
        return None;
    }
    let expr = match given {
        Some(g) => g.to_string(),
        None => {
            let c = if cue == "Σ" {
                raw.find(['Σ', '∑']).map(|p| p + raw[p..].chars().next().map_or(1, char::len_utf8))?
            } else {
                find_ci(raw, cue)? + cue.len()
            };
            let end = bounds.as_ref().map(|b| b.3).unwrap_or(raw.len()).max(c);
            let mut body = raw[c..end].to_string();
            let whole = body.clone();
            for stop in [" converge", " diverge", " for ", " over ", " where ", ", "] {
                if let Some(p) = find_ci(&body, stop) {
                    body.truncate(p);
                }
            }
            let read = strip_tail(&clean(after_words(body.trim_start())));
            // Otherwise the summand is what the words around it hold ("sum over k of
            // 1/k", "k squared"), or follows the bounds ("sum over t from 1 to
            // infinity of 100/(1.05)^t").
            let after_bounds = || {
                let b = bounds.as_ref()?;
                let at = ts.iter().position(|t| t.start == b.3)?;
                let upper_end = ts[at..].iter().find(|t| point_word(t.text) == b.2 || t.text.contains(".."))?.end;
                let rest = raw[upper_end..].trim_start();
                let rest = rest.strip_prefix("of ").unwrap_or(rest);
                crate::router::expression_in(&strip_tail(rest))
            };
            if parses(&read) {
                read
            } else {
                crate::router::expression_in(&strip_tail(&whole))
                    .filter(|e| parses(e))
                    .or_else(after_bounds)
                    // "does 1/n summed from n=1 to oo diverge": before the cue.
                    .or_else(|| {
                        let at = if cue == "Σ" { raw.find(['Σ', '∑']) } else { find_ci(raw, cue) };
                        crate::router::expression_in(raw.get(..at?)?)
                    })
                    .unwrap_or(read)
            }
        }
    };
    if !parses(&expr) {
        return None;
    }
    args.insert("expr".into(), json!(expr));
    match bounds {
        Some((k, a, b, _)) => {
            if let Some(k) = k.filter(|k| k.chars().count() == 1) {
                args.insert("var".into(), json!(k));
            }
            args.insert("lower".into(), crate::router::scalar(a.trim_end_matches([',', '?'])));
            args.insert("upper".into(), crate::router::scalar(&b));
        }
        None => {
            args.insert("lower".into(), json!(1));
            args.insert("upper".into(), json!("oo"));
        }
    }
    Some(args)
}

/// A series' expression as what is left of the question with its point ("about
/// pi/2", "at x = 0", "near zero") and order ("order 4", "up to x^5", "degree 3") cut
/// out, each cut ending a run of notation.
fn series_leftover(raw: &str) -> Option<String> {
    let ts = toks(raw);
    let mut keep = String::new();
    let mut skip = 0usize;
    for (i, t) in ts.iter().enumerate() {
        let w = t.text.trim_end_matches([',', '.', '?', '!']).to_lowercase();
        let next = |k: usize| ts.get(i + k).map(|t| t.text.trim_end_matches([',', '.', '?', '!']).to_lowercase());
        if skip == 0 {
            skip = match w.as_str() {
                "about" | "around" | "near" | "at" if next(2).as_deref() == Some("=") => 4,
                "about" | "around" | "near" | "at" | "order" | "degree" | "through" => 2,
                "up" if next(1).as_deref() == Some("to") => 3,
                "in" if next(1).as_deref() == Some("powers") => 4,
                _ => 0,
            };
        }
        if skip > 0 {
            skip -= 1;
            keep.push_str(" . ");
            continue;
        }
        keep.push_str(t.text);
        keep.push(' ');
    }
    crate::router::expression_in(&keep).filter(|e| parses(e))
}

/// A summand read from words: drop "converge?", "is it finite", trailing words.
fn strip_tail(s: &str) -> String {
    let mut s = s.to_string();
    for stop in [" converge", " diverge", " is ", " equal"] {
        if let Some(p) = find_ci(&s, stop) {
            s.truncate(p);
        }
    }
    // Words after the summand ("2^k closed form?") are prose.
    let mut s = clean(&s);
    while let Some(cut) = s.trim_end().rfind(char::is_whitespace)
        && is_prose(&s[cut + s[cut..].chars().next().map_or(1, char::len_utf8)..])
    {
        s = clean(&s[..cut]);
    }
    s
}

fn system(raw: &str, q: &Question, given: Option<&str>) -> Option<Args> {
    let text = match given {
        Some(g) => g,
        None => {
            q.any(&[
                "solve",
                "system",
                "simultaneous",
                "simultaneously",
                "solutions",
                "solution",
                "satisfy",
                "such that",
                "find",
            ])?;
            raw
        }
    };
    // Equations set between dollars ("$2x + 3y = 7$, $x - y = 1$") are read without them.
    let undollared = text.replace('$', " ");
    let text = if text.contains('$') { undollared.as_str() } else { text };
    let mut candidate = if let Some(p) = text.find("\\begin{cases}") {
        text[p..].to_string()
    } else if let Some(p) = text.rfind(':') {
        text[p + 1..].to_string()
    } else {
        // After the last English word before the first '='.
        let eq = text.find('=')?;
        after_words_before(text, eq).to_string()
    };
    if let Some(last_eq) = candidate.rfind('=')
        && let Some(p) = find_ci(&candidate[last_eq..], " for ")
    {
        candidate.truncate(last_eq + p);
    }
    let parts = crate::linalg::split_system(&clean(&candidate))?;
    let limits = crate::Limits::default();
    if !parts.iter().all(|p| crate::parse_statement(p, &limits).is_ok()) {
        return None;
    }
    let mut args = Args::new();
    args.insert("expr".into(), json!(parts.join("; ")));
    Some(args)
}

/// `\int f dx`, `\int_a^b f dx`, `\int_{a}^{b} f\,dx`: the integrand, variable and bounds.
fn integral(raw: &str, given: Option<&str>) -> Option<Args> {
    // The sign as LaTeX (`\int`), as Unicode (`∫`, with subscript bounds `∫₀^π`) or
    // typed as a word (`int_0^pi`).
    let sign = |t: &str| -> Option<(usize, usize)> {
        t.find("\\int").map(|p| (p, 4)).or_else(|| t.find('∫').map(|p| (p, '∫'.len_utf8()))).or_else(|| {
            let p = t.find("int_")?;
            (p == 0 || t[..p].ends_with(char::is_whitespace)).then_some((p, 3))
        })
    };
    let text = [raw, given.unwrap_or("")].into_iter().find(|t| sign(t).is_some())?;
    let text = SUBSCRIPTS.iter().fold(text.to_string(), |t, (sub, digit)| t.replace(*sub, &format!("_{digit}")));
    let text = text.replace("_{_", "_{").replace("__", "_");
    let (at, len) = sign(&text)?;
    let mut rest = text[at + len..].trim_start();
    let mut bounds = None;
    let bound = |s: &str| -> Option<(String, usize)> {
        if let Some(r) = s.strip_prefix('{') {
            let c = crate::limit::matching(r)?;
            return Some((r[..c].trim().replace("\\infty", "oo"), c + 2));
        }
        if let Some(r) = s.strip_prefix("\\infty") {
            let _ = r;
            return Some(("oo".into(), 6));
        }
        if s.starts_with('∞') {
            return Some(("oo".into(), '∞'.len_utf8()));
        }
        let c = s.chars().next()?;
        if c == '-' {
            let (b, n) = bound_char(&s[1..])?;
            return Some((format!("-{b}"), n + 1));
        }
        bound_char(s)
    };
    if let Some(r) = rest.strip_prefix('_') {
        let (a, n) = bound(r.trim_start())?;
        let r = r.trim_start()[n..].trim_start().strip_prefix('^')?.trim_start();
        let (b, m) = bound(r)?;
        bounds = Some([a, b]);
        rest = r[m..].trim_start();
    }
    // The integrand runs to the differential: "dx", "\,dx", "\, dt", "d x".
    let body = rest.replace("\\,", " ").replace("\\;", " ").replace("\\!", "");
    let ts = toks(&body);
    let (i, dv) = ts.iter().enumerate().rev().find_map(|(i, t)| {
        let w = t.text.trim_end_matches(['?', '.', ',', '$']);
        let v = w.strip_prefix('d')?;
        (v.chars().count() == 1 && v.chars().all(char::is_alphabetic)).then(|| (i, v.to_string()))
    })?;
    let expr = clean(&body[..ts[i].start]);
    if !parses(&expr) {
        return None;
    }
    let mut args = Args::new();
    args.insert("expr".into(), json!(expr));
    args.insert("var".into(), json!(dv));
    if let Some([a, b]) = bounds {
        args.insert("bounds".into(), json!([crate::router::scalar(&a), crate::router::scalar(&b)]));
    }
    Some(args)
}

/// Subscript digits, as the digits they are (`∫₀¹`).
const SUBSCRIPTS: [(char, char); 10] = [
    ('₀', '0'),
    ('₁', '1'),
    ('₂', '2'),
    ('₃', '3'),
    ('₄', '4'),
    ('₅', '5'),
    ('₆', '6'),
    ('₇', '7'),
    ('₈', '8'),
    ('₉', '9'),
];

/// One-character bound (`\int_0^1`), or a number (`\int_0^10`).
fn bound_char(s: &str) -> Option<(String, usize)> {
    let n = s.chars().take_while(|c| c.is_ascii_digit() || *c == '.').map(char::len_utf8).sum::<usize>();
    if n > 0 {
        return Some((s[..n].to_string(), n));
    }
    let c = s.chars().next()?;
    c.is_alphanumeric().then(|| (c.to_string(), c.len_utf8()))
}

fn is_word(w: &str) -> bool {
    let w = w.trim_end_matches([',', ':', '?', '.']);
    w.chars().count() >= 2
        && w.chars().all(char::is_alphabetic)
        && crate::parse::KNOWN.iter().all(|k| !k.eq_ignore_ascii_case(w))
}

/// The text after its leading English words ("the geometric series 1/3^k" → "1/3^k").
fn after_words(s: &str) -> &str {
    let ts = toks(s);
    match ts.iter().position(|t| !is_word(t.text)) {
        Some(i) => &s[ts[i].start..],
        None => "",
    }
}

/// The text after the last English word that starts before byte `before`.
fn after_words_before(s: &str, before: usize) -> &str {
    let ts = toks(s);
    match ts.iter().rfind(|t| t.start < before && is_word(t.text)) {
        Some(t) => &s[t.end..],
        None => s,
    }
}

/// Words that say a quantity is followed to a point: a limit is asked only with one of
/// them (or an arrow), so "evaluate f at 0" stays an evaluation.
const LIMIT_CUES: &[&str] = &[
    "limit",
    "limits",
    "lim",
    "approach",
    "approaches",
    "approaching",
    "tend",
    "tends",
    "tending",
    "goes to",
    "go to",
    "going to",
    "gets to",
    "shrinks",
    "shrinking",
    "heads to",
    "what happens",
    "left hand",
    "right hand",
    "one sided",
];

/// How a variable is said to move to its point, after "as x"/"when x"/"for n".
const MOTIONS: &[&[&str]] = &[
    &["->"],
    &["→"],
    &["approaches"],
    &["approach"],
    &["approaching"],
    &["tends", "to"],
    &["tending", "to"],
    &["tend", "to"],
    &["goes", "to"],
    &["going", "to"],
    &["go", "to"],
    &["gets", "to"],
    &["shrinks", "to"],
    &["heads", "to"],
    &["to"],
];

/// A single letter naming the variable (punctuation around it dropped).
fn letter(t: &str) -> Option<String> {
    let t = t.trim_matches(|c: char| matches!(c, ',' | '?' | '.' | '!' | ';' | ':' | '$'));
    (t.chars().count() == 1 && t.chars().all(char::is_alphabetic)).then(|| t.to_string())
}

/// A point a limit is taken at: a number, a constant, infinity, or an arithmetic of
/// them ("pi/2", "-1", "0+"); never a word or a variable.
fn limit_point_at(t: &str) -> Option<String> {
    let p = point_word(t).replace('⁺', "+").replace('⁻', "-");
    let p = p.strip_suffix("^+").map(|b| format!("{b}+")).unwrap_or(p);
    let p = p.strip_suffix("^-").map(|b| format!("{b}-")).unwrap_or(p);
    let core = p.trim_end_matches(['+', '-']);
    if matches!(core, "oo" | "-oo") {
        return Some(p);
    }
    let e = crate::parse_expr(core, &crate::Limits::default()).ok()?;
    (!core.is_empty() && e.free_symbols().is_empty()).then_some(p)
}

/// "as x goes to 0", "when n -> oo", "for n to infinity", "x→0", "at 0", "near x=1",
/// "at x = 2": the clause's byte span, the variable (when named) and the point. The
/// clauses that move a variable come first; a bare "at"/"near" point last.
fn limit_clause(ts: &[Tok<'_>]) -> Option<(usize, usize, Option<String>, String)> {
    let low = |i: usize| ts.get(i).map(|t| t.text.trim_end_matches([',', '?', '.', '!']).to_lowercase());
    // "negative infinity", "minus 1", "positive infinity", "zero from the right"
    let point_from = |k: usize| -> Option<(String, usize)> {
        let w = low(k)?;
        let (sign, k) = match w.as_str() {
            "negative" | "minus" => ("-", k + 1),
            "positive" | "plus" => ("", k + 1),
            _ => ("", k),
        };
        let p = limit_point_at(ts.get(k)?.text)?;
        Some((if sign.is_empty() { p } else { format!("-{p}") }, ts[k].end))
    };
    // An arrow inside a token: "x->0", "x→0+", "x->" followed by the point.
    let arrow = |i: usize| -> Option<(Option<String>, String, usize)> {
        let t = ts.get(i)?.text;
        let (v, a) = t.split_once("->").or_else(|| t.split_once('→'))?;
        let v = letter(v)?;
        if a.is_empty() {
            let (p, end) = point_from(i + 1)?;
            return Some((Some(v), p, end));
        }
        Some((Some(v), limit_point_at(a)?, ts[i].end))
    };
    for (i, t) in ts.iter().enumerate() {
        let w = low(i).unwrap_or_default();
        if matches!(w.as_str(), "as" | "when" | "while" | "for" | "with") {
            if let Some((v, p, end)) = arrow(i + 1) {
                return Some((t.start, end, v, p));
            }
            let Some(v) = ts.get(i + 1).and_then(|n| letter(n.text)) else { continue };
            for m in MOTIONS {
                let said = (0..m.len()).all(|j| low(i + 2 + j).as_deref() == Some(m[j]));
                if said && let Some((p, end)) = point_from(i + 2 + m.len()) {
                    return Some((t.start, end, Some(v), p));
                }
            }
        }
    }
    for (i, t) in ts.iter().enumerate() {
        if let Some((v, p, end)) = arrow(i) {
            return Some((t.start, end, v, p));
        }
        // "x -> 0" written apart.
        if matches!(t.text, "->" | "→")
            && let Some(v) = i.checked_sub(1).and_then(|j| letter(ts[j].text))
            && let Some((p, end)) = point_from(i + 1)
        {
            return Some((ts[i - 1].start, end, Some(v), p));
        }
    }
    for (i, t) in ts.iter().enumerate() {
        if !matches!(low(i).as_deref(), Some("at" | "near")) {
            continue;
        }
        let Some(n) = ts.get(i + 1) else { continue };
        // "at x = 2", "near x=1", "at x=0"
        if let Some((v, a)) = n.text.split_once('=')
            && let Some(v) = letter(v)
        {
            let found = if a.is_empty() { point_from(i + 2) } else { limit_point_at(a).map(|p| (p, n.end)) };
            if let Some((p, end)) = found {
                return Some((t.start, end, Some(v), p));
            }
            continue;
        }
        if let Some(v) = letter(n.text)
            && ts.get(i + 2).is_some_and(|e| e.text == "=")
            && let Some((p, end)) = point_from(i + 3)
        {
            return Some((t.start, end, Some(v), p));
        }
        if let Some((p, end)) = point_from(i + 1) {
            return Some((t.start, end, None, p));
        }
    }
    None
}

/// A limit said in words, in any order: the point from a clause that moves the
/// variable ("as x goes to 0", "for n to infinity", "x→0") or places it ("at 0",
/// "near x=1", with a word of limits or approaching in the question), the side from
/// "from the left/right", "left-hand", "from below/above", and the expression as what
/// the rest of the question holds (before the clause, else after it), or the ask's
/// `expr`. `None` without a point: "the limit of f" alone is asked back.
fn limit_in_words(raw: &str, q: &Question, given: Option<&str>) -> Option<Args> {
    let arrowed = raw.contains("->") || raw.contains('→');
    if q.any(LIMIT_CUES).is_none() && !arrowed {
        return None;
    }
    let ts = toks(raw);
    let (from, to, var, point) = limit_clause(&ts)?;
    let side = if ["from the left", "from left", "left-hand", "left hand", "from below"]
        .iter()
        .any(|m| find_ci(raw, m).is_some())
    {
        Some("left")
    } else if ["from the right", "from right", "right-hand", "right hand", "from above"]
        .iter()
        .any(|m| find_ci(raw, m).is_some())
    {
        Some("right")
    } else {
        None
    };
    let expr = match given {
        Some(g) => g.trim().to_string(),
        None => {
            let unsided = |s: &str| {
                let mut s = s.to_string();
                for m in ["from the left", "from the right", "from left", "from right", "from below", "from above"] {
                    while let Some(p) = find_ci(&s, m) {
                        s.replace_range(p..p + m.len(), " ");
                    }
                }
                s
            };
            let before = unsided(&raw[..from]);
            let after = unsided(&raw[to..]);
            let after = after.trim_start();
            let after = after.strip_prefix("of ").unwrap_or(after);
            crate::router::expression_in(&before)
                .filter(|e| parses(e))
                .or_else(|| crate::router::expression_in(after).filter(|e| parses(e)))?
        }
    };
    if !parses(&expr) {
        return None;
    }
    let mut args = Args::new();
    args.insert("expr".into(), json!(expr));
    args.insert("to".into(), crate::router::scalar(&point));
    if let Some(v) = var {
        args.insert("var".into(), json!(v));
    }
    if let Some(s) = side {
        args.insert("direction".into(), json!(s));
    }
    Some(args)
}
