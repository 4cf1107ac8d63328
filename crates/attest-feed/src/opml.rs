//! OPML import and export: the subscription-list format feed readers exchange.
//!
//! Import reads every `<outline>` that has an `xmlUrl`, however deeply nested (folders
//! are flattened), and subscribes it; outlines without `xmlUrl` are folders or notes
//! and are passed over. Export writes one flat OPML 2.0 body.

use serde::{Deserialize, Serialize};

use crate::store::FeedStore;
use crate::{FeedError, Result};

/// One feed listed in an OPML file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outline {
    /// The feed address (`xmlUrl`).
    pub url: String,
    /// `title`, or else `text`.
    pub title: Option<String>,
}

/// What [`import`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OpmlImport {
    /// Feeds newly subscribed.
    pub subscribed: usize,
    /// Feeds that were already subscribed.
    pub already: usize,
    /// Outlines refused, with why (an unsupported scheme, say).
    pub refused: Vec<crate::ingest::FailedFeed>,
}

/// Read the feed outlines of an OPML document.
pub fn parse(text: &str) -> Result<Vec<Outline>> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut out = Vec::new();
    let mut saw_opml = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => {
                let name = e.local_name();
                if name.as_ref().eq_ignore_ascii_case("opml") {
                    saw_opml = true;
                }
                if !name.as_ref().eq_ignore_ascii_case("outline") {
                    continue;
                }
                let (mut url, mut title, mut text_attr) = (None, None, None);
                for attr in e.attributes().with_checks(false).flatten() {
                    let value = match attr.normalized_value(quick_xml::XmlVersion::Implicit1_0) {
                        Ok(v) => v.into_owned(),
                        Err(_) => html_escape::decode_html_entities(&attr.value).into_owned(),
                    };
                    let value = crate::clean::collapse_ws(&value);
                    match attr.key.local_name().as_ref().to_ascii_lowercase().as_str() {
                        "xmlurl" => url = Some(value),
                        "title" => title = Some(value),
                        "text" => text_attr = Some(value),
                        _ => {}
                    }
                }
                if let Some(url) = url.filter(|u| !u.is_empty()) {
                    out.push(Outline {
                        url,
                        title: title.filter(|t| !t.is_empty()).or(text_attr.filter(|t| !t.is_empty())),
                    });
                }
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => return Err(FeedError::Opml(format!("at byte {}: {e}", reader.buffer_position()))),
        }
    }
    if !saw_opml {
        return Err(FeedError::Opml("no <opml> element".into()));
    }
    Ok(out)
}

/// Subscribe every feed an OPML document lists. A refused outline is reported and the
/// rest continue; nothing is fetched.
pub async fn import(store: &FeedStore, text: &str) -> Result<OpmlImport> {
    let mut res = OpmlImport::default();
    for o in parse(text)? {
        match store.subscribe(&o.url, o.title.as_deref()).await {
            Ok(s) if s.created => res.subscribed += 1,
            Ok(_) => res.already += 1,
            Err(e @ (FeedError::BadUrl(_) | FeedError::Fetch(_))) => {
                res.refused.push(crate::ingest::FailedFeed { url: o.url, error: e.to_string() })
            }
            Err(e) => return Err(e),
        }
    }
    Ok(res)
}

fn attr(s: &str) -> String {
    quick_xml::escape::escape(s).replace('\n', "&#10;")
}

/// Render outlines as an OPML 2.0 document.
pub fn render(title: &str, outlines: &[Outline]) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n  <head>\n");
    s.push_str(&format!("    <title>{}</title>\n  </head>\n  <body>\n", attr(title)));
    for o in outlines {
        let t = attr(o.title.as_deref().unwrap_or(&o.url));
        s.push_str(&format!("    <outline type=\"rss\" text=\"{t}\" title=\"{t}\" xmlUrl=\"{}\"/>\n", attr(&o.url)));
    }
    s.push_str("  </body>\n</opml>\n");
    s
}

/// Every subscription as an OPML 2.0 document.
pub async fn export(store: &FeedStore) -> Result<String> {
    let outlines: Vec<Outline> =
        store.feeds().await?.into_iter().map(|f| Outline { url: f.url, title: f.title }).collect();
    Ok(render("attest subscriptions", &outlines))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nested_outlines_and_round_trips() {
        let text = r#"<?xml version="1.0"?><opml version="1.0"><head/><body>
            <outline text="Chemistry">
              <outline text="Synth &amp; Cat" xmlUrl="https://example.org/a.xml"/>
              <outline title="B" text="ignored" xmlUrl="https://example.org/b?x=1&amp;y=2"></outline>
            </outline>
            <outline text="a folder with no feed"/>
        </body></opml>"#;
        let o = parse(text).unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].title.as_deref(), Some("Synth & Cat"));
        assert_eq!(o[1].url, "https://example.org/b?x=1&y=2");
        assert_eq!(o[1].title.as_deref(), Some("B"));
        assert_eq!(parse(&render("t", &o)).unwrap(), o);
    }

    #[test]
    fn refuses_what_is_not_opml() {
        assert!(parse("<rss><channel/></rss>").is_err());
        assert!(parse("<opml><body><outline xmlUrl='x'></body>").is_err());
    }
}
