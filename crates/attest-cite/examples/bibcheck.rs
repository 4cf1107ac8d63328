//! Read a `.bib` file the way the resolver does and print what it yielded:
//! `cargo run -p attest-cite --example bibcheck -- refs.bib`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bibcheck FILE.bib");
        std::process::exit(2);
    };
    let file = match attest_cite::bibtex::read(std::path::Path::new(&path), &path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    for r in file.references.iter().take(20) {
        println!("{:<28} {}", r.key, r.line());
    }
    for p in &file.problems {
        println!(
            "  line {:>6} {:<24} {}{}",
            p.line,
            p.key.as_deref().unwrap_or("-"),
            if p.kept { "(kept) " } else { "" },
            p.reason
        );
    }
    println!("{} references, {} entries skipped", file.references.len(), file.skipped());
}
