//! Tags without a model: arXiv categories as the names of their fields (a data
//! table), and a deterministic concept extractor over a title and abstract.
//!
//! **Candidates** are noun phrases found without a part-of-speech model: the text is
//! cut into words (letters and digits, inner hyphens and apostrophes kept) and every
//! function word, verb of academic prose (with its inflections), adverb, generic
//! modifier ("novel", "efficient") and punctuation mark ends a run. Within a run, the
//! sub-phrases of 1–4 words that end in a noun-like word (never a participle, an
//! adjective suffix or a function word) and do not consist of generic nouns alone
//! ("results", "performance") are candidates. A phrase spelled out before its
//! acronym ("graph neural networks (GNNs)") lends the acronym its name.
//!
//! **Names** come from [`Canon`] (aliases, case, separators) and the archive's
//! [`Vocabulary`], then the built-in vocabulary ([`known`]: `concepts.toml`, the arXiv
//! field names and the alias table's names). Two spellings are the same concept when
//! their *stem keys* agree: each word lower-cased, British spelling folded to American
//! (`-isation`, `-our`, `-tre`), and stemmed with the Snowball English stemmer
//! (rust-stemmers), so `catalyst`/`catalysts` and `data centres`/`data centers` meet.
//!
//! **Scores** (per item): every occurrence of a candidate adds 3 in the title and 1 in
//! the abstract; the sum is multiplied by a length factor favouring two- and
//! three-word phrases (specific concepts) over single words.
//!
//! **Selection** ([`select`], over a batch of items; [`Policy`]): a candidate is kept
//! when it is a known concept (the archive's vocabulary or the built-in one), when it
//! recurs (at least two items of the batch carry it), or when it is *anchored*: a
//! noun phrase of two words or more, or a title word, that the item itself leans on.
//! A lone word met once in an abstract is never kept. Known concepts count three times
//! and recurring ones gain with the log of their item count. Per item the best are
//! taken, at most `max`, skipping a phrase that is part of one already taken (or
//! contains one, or continues it: `neutron-stars` then `star-merger`), and anything
//! under 6.5% of the item's best. Anchored phrases are what let a later item recur
//! onto an earlier one (the archive's tags are the vocabulary the next ingest maps
//! onto); the concept graph keeps only tags carried by two items or more.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use serde::Deserialize;

use crate::Vocabulary;
use crate::canon::Canon;

/// arXiv categories and the concepts (field names) they stand for.
pub const ARXIV: &[(&str, &[&str])] = &[
    ("cs", &["computer-science"]),
    ("cs.AI", &["artificial-intelligence"]),
    ("cs.AR", &["hardware-architecture"]),
    ("cs.CC", &["computational-complexity"]),
    ("cs.CE", &["computational-engineering"]),
    ("cs.CG", &["computational-geometry"]),
    ("cs.CL", &["computation-and-language", "natural-language-processing"]),
    ("cs.CR", &["security-and-cryptography"]),
    ("cs.CV", &["computer-vision"]),
    ("cs.CY", &["computers-and-society"]),
    ("cs.DB", &["databases"]),
    ("cs.DC", &["distributed-computing"]),
    ("cs.DL", &["digital-libraries"]),
    ("cs.DM", &["discrete-mathematics"]),
    ("cs.DS", &["data-structures-and-algorithms"]),
    ("cs.ET", &["emerging-technologies"]),
    ("cs.FL", &["formal-languages"]),
    ("cs.GR", &["computer-graphics"]),
    ("cs.GT", &["game-theory"]),
    ("cs.HC", &["human-computer-interaction"]),
    ("cs.IR", &["information-retrieval"]),
    ("cs.IT", &["information-theory"]),
    ("cs.LG", &["machine-learning"]),
    ("cs.LO", &["logic-in-computer-science"]),
    ("cs.MA", &["multi-agent-systems"]),
    ("cs.MM", &["multimedia"]),
    ("cs.MS", &["mathematical-software"]),
    ("cs.NA", &["numerical-analysis"]),
    ("cs.NE", &["neural-and-evolutionary-computing"]),
    ("cs.NI", &["networking"]),
    ("cs.OS", &["operating-systems"]),
    ("cs.PF", &["performance-engineering"]),
    ("cs.PL", &["programming-languages"]),
    ("cs.RO", &["robotics"]),
    ("cs.SC", &["symbolic-computation"]),
    ("cs.SD", &["sound"]),
    ("cs.SE", &["software-engineering"]),
    ("cs.SI", &["social-and-information-networks"]),
    ("cs.SY", &["systems-and-control"]),
    ("econ.EM", &["econometrics"]),
    ("econ.GN", &["economics"]),
    ("econ.TH", &["economic-theory"]),
    ("eess.AS", &["audio-and-speech-processing"]),
    ("eess.IV", &["image-and-video-processing"]),
    ("eess.SP", &["signal-processing"]),
    ("eess.SY", &["systems-and-control"]),
    ("math", &["mathematics"]),
    ("math.AC", &["commutative-algebra"]),
    ("math.AG", &["algebraic-geometry"]),
    ("math.AP", &["partial-differential-equations"]),
    ("math.AT", &["algebraic-topology"]),
    ("math.CA", &["classical-analysis"]),
    ("math.CO", &["combinatorics"]),
    ("math.CT", &["category-theory"]),
    ("math.CV", &["complex-analysis"]),
    ("math.DG", &["differential-geometry"]),
    ("math.DS", &["dynamical-systems"]),
    ("math.FA", &["functional-analysis"]),
    ("math.GN", &["general-topology"]),
    ("math.GR", &["group-theory"]),
    ("math.GT", &["geometric-topology"]),
    ("math.HO", &["history-of-mathematics"]),
    ("math.IT", &["information-theory"]),
    ("math.KT", &["k-theory"]),
    ("math.LO", &["mathematical-logic"]),
    ("math.MG", &["metric-geometry"]),
    ("math.MP", &["mathematical-physics"]),
    ("math.NA", &["numerical-analysis"]),
    ("math.NT", &["number-theory"]),
    ("math.OA", &["operator-algebras"]),
    ("math.OC", &["optimization"]),
    ("math.PR", &["probability"]),
    ("math.QA", &["quantum-algebra"]),
    ("math.RA", &["rings-and-algebras"]),
    ("math.RT", &["representation-theory"]),
    ("math.SG", &["symplectic-geometry"]),
    ("math.SP", &["spectral-theory"]),
    ("math.ST", &["statistics-theory"]),
    ("astro-ph", &["astrophysics"]),
    ("astro-ph.CO", &["cosmology"]),
    ("astro-ph.EP", &["planetary-science"]),
    ("astro-ph.GA", &["galaxies"]),
    ("astro-ph.HE", &["high-energy-astrophysics"]),
    ("astro-ph.IM", &["astronomical-instrumentation"]),
    ("astro-ph.SR", &["stellar-astrophysics"]),
    ("cond-mat", &["condensed-matter"]),
    ("cond-mat.dis-nn", &["disordered-systems"]),
    ("cond-mat.mes-hall", &["mesoscale-physics"]),
    ("cond-mat.mtrl-sci", &["materials-science"]),
    ("cond-mat.other", &["condensed-matter"]),
    ("cond-mat.quant-gas", &["quantum-gases"]),
    ("cond-mat.soft", &["soft-matter"]),
    ("cond-mat.stat-mech", &["statistical-mechanics"]),
    ("cond-mat.str-el", &["strongly-correlated-electrons"]),
    ("cond-mat.supr-con", &["superconductivity"]),
    ("gr-qc", &["general-relativity"]),
    ("hep-ex", &["high-energy-physics"]),
    ("hep-lat", &["lattice-field-theory"]),
    ("hep-ph", &["particle-physics"]),
    ("hep-th", &["high-energy-theory"]),
    ("math-ph", &["mathematical-physics"]),
    ("nlin", &["nonlinear-dynamics"]),
    ("nlin.AO", &["self-organizing-systems"]),
    ("nlin.CD", &["chaotic-dynamics"]),
    ("nlin.CG", &["cellular-automata"]),
    ("nlin.PS", &["pattern-formation"]),
    ("nlin.SI", &["integrable-systems"]),
    ("nucl-ex", &["nuclear-physics"]),
    ("nucl-th", &["nuclear-physics"]),
    ("physics", &["physics"]),
    ("physics.acc-ph", &["accelerator-physics"]),
    ("physics.ao-ph", &["atmospheric-physics"]),
    ("physics.app-ph", &["applied-physics"]),
    ("physics.atm-clus", &["atomic-clusters"]),
    ("physics.atom-ph", &["atomic-physics"]),
    ("physics.bio-ph", &["biological-physics"]),
    ("physics.chem-ph", &["chemical-physics"]),
    ("physics.class-ph", &["classical-physics"]),
    ("physics.comp-ph", &["computational-physics"]),
    ("physics.data-an", &["data-analysis"]),
    ("physics.ed-ph", &["physics-education"]),
    ("physics.flu-dyn", &["fluid-dynamics"]),
    ("physics.geo-ph", &["geophysics"]),
    ("physics.hist-ph", &["history-of-physics"]),
    ("physics.ins-det", &["instrumentation-and-detectors"]),
    ("physics.med-ph", &["medical-physics"]),
    ("physics.optics", &["optics"]),
    ("physics.plasm-ph", &["plasma-physics"]),
    ("physics.soc-ph", &["physics-and-society"]),
    ("physics.space-ph", &["space-physics"]),
    ("q-bio", &["quantitative-biology"]),
    ("q-bio.BM", &["biomolecules"]),
    ("q-bio.CB", &["cell-behavior"]),
    ("q-bio.GN", &["genomics"]),
    ("q-bio.MN", &["molecular-networks"]),
    ("q-bio.NC", &["neuroscience"]),
    ("q-bio.PE", &["populations-and-evolution"]),
    ("q-bio.QM", &["quantitative-methods"]),
    ("q-bio.SC", &["subcellular-processes"]),
    ("q-bio.TO", &["tissues-and-organs"]),
    ("q-fin", &["quantitative-finance"]),
    ("q-fin.CP", &["computational-finance"]),
    ("q-fin.EC", &["economics"]),
    ("q-fin.GN", &["finance"]),
    ("q-fin.MF", &["mathematical-finance"]),
    ("q-fin.PM", &["portfolio-management"]),
    ("q-fin.PR", &["pricing-of-securities"]),
    ("q-fin.RM", &["risk-management"]),
    ("q-fin.ST", &["statistical-finance"]),
    ("q-fin.TR", &["trading-and-market-microstructure"]),
    ("quant-ph", &["quantum-physics"]),
    ("stat", &["statistics"]),
    ("stat.AP", &["applied-statistics"]),
    ("stat.CO", &["computational-statistics"]),
    ("stat.ME", &["statistical-methodology"]),
    ("stat.ML", &["machine-learning", "statistics"]),
    ("stat.OT", &["statistics"]),
    ("stat.TH", &["statistics-theory"]),
];

/// The concepts for a list of arXiv categories (primary and cross-lists), in order,
/// without repeats. Unknown categories give nothing.
pub fn arxiv_tags<S: AsRef<str>>(categories: &[S]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in categories {
        if let Some((_, tags)) = ARXIV.iter().find(|(k, _)| k.eq_ignore_ascii_case(c.as_ref().trim())) {
            for t in *tags {
                if !out.iter().any(|o| o == t) {
                    out.push(t.to_string());
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------
// Word classes

/// Academic filler that never starts, ends or makes a concept (on top of
/// [`crate::words::FUNCTION_WORDS`]): generic modifiers, quantities, discourse words.
const BREAK_WORDS: &[&str] = &[
    "able",
    "accurate",
    "additional",
    "almost",
    "alternative",
    "another",
    "available",
    "best",
    "better",
    "broad",
    "certain",
    "cheaper",
    "close",
    "common",
    "comparable",
    "costly",
    "current",
    "different",
    "difficult",
    "direct",
    "distinct",
    "due",
    "easy",
    "effective",
    "efficient",
    "either",
    "entire",
    "especially",
    "even",
    "every",
    "existing",
    "fast",
    "faster",
    "fewer",
    "final",
    "full",
    "good",
    "great",
    "half",
    "hard",
    "important",
    "instead",
    "key",
    "large",
    "larger",
    "largest",
    "less",
    "like",
    "likely",
    "lower",
    "main",
    "major",
    "minor",
    "modern",
    "must",
    "near",
    "necessary",
    "next",
    "overall",
    "own",
    "particular",
    "per",
    "possible",
    "potential",
    "powerful",
    "practical",
    "previous",
    "prior",
    "rather",
    "real",
    "recent",
    "relevant",
    "routine",
    "several",
    "short",
    "significant",
    "similar",
    "simple",
    "slow",
    "smaller",
    "specific",
    "standard",
    "state",
    "still",
    "strong",
    "stronger",
    "substantial",
    "successful",
    "suitable",
    "together",
    "typical",
    "unlike",
    "useful",
    "various",
    "whose",
    "wide",
    "art",
    "way",
    "ways",
    "lot",
    "kind",
    "kinds",
    "fold",
    "times",
    "x",
    "e.g",
    "i.e",
    "etc",
    "versus",
    "vs",
    "among",
    "around",
    "beyond",
    "toward",
    "per",
    "onto",
    "often",
    "usually",
    "already",
    "always",
    "never",
    "now",
    "then",
    "much",
    "less",
    "least",
    "high",
    "higher",
    "highest",
    "low",
    "lowest",
    "small",
    "smallest",
    "new",
    "novel",
    "improved",
    "improve",
    "three",
    "four",
    "five",
    "six",
    "ten",
    "twelve",
    "hundreds",
    "thousands",
    "millions",
    "billions",
    "dozens",
    "once",
    "twice",
    "whole",
    "minutes",
    "seconds",
    "hours",
    "days",
    "step",
    "steps",
    "order",
    "orders",
    "part",
    "parts",
    "end",
    "top",
    "able",
    "unseen",
    "free",
    "thereby",
    "hence",
    "therefore",
    "moreover",
    "despite",
    "finally",
    "specifically",
    "notably",
    "respectively",
    "seven",
    "eight",
    "nine",
    "eleven",
    "fourteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "hundred",
    "thousand",
    "million",
    "billion",
    "near-best",
    "overnight",
    "unseen",
    "realistic",
    "scalable",
    "predictable",
    "multiple",
];

/// Nouns too general to be a concept alone ("results", "performance"); they may sit in
/// a longer phrase ("language models", "reaction conditions").
const GENERIC_NOUNS: &[&str] = &[
    "accuracy",
    "advance",
    "advances",
    "analysis",
    "application",
    "applications",
    "approach",
    "approaches",
    "aspect",
    "aspects",
    "baseline",
    "baselines",
    "behaviour",
    "behavior",
    "benefit",
    "benefits",
    "case",
    "cases",
    "challenge",
    "challenges",
    "choice",
    "class",
    "classes",
    "condition",
    "conditions",
    "configuration",
    "configurations",
    "cost",
    "costs",
    "data",
    "dataset",
    "datasets",
    "description",
    "design",
    "designs",
    "device",
    "devices",
    "effect",
    "effects",
    "efficiency",
    "error",
    "errors",
    "evaluation",
    "evidence",
    "example",
    "examples",
    "experiment",
    "experiments",
    "factor",
    "factors",
    "failure",
    "feature",
    "field",
    "finding",
    "findings",
    "form",
    "framework",
    "frameworks",
    "function",
    "functions",
    "gain",
    "gains",
    "goal",
    "group",
    "groups",
    "impact",
    "improvement",
    "improvements",
    "information",
    "input",
    "inputs",
    "insight",
    "insights",
    "issue",
    "issues",
    "level",
    "levels",
    "library",
    "libraries",
    "limit",
    "limits",
    "loss",
    "means",
    "measure",
    "measurements",
    "mechanism",
    "mechanisms",
    "method",
    "model",
    "models",
    "number",
    "numbers",
    "objective",
    "operation",
    "operations",
    "option",
    "options",
    "outcome",
    "outcomes",
    "output",
    "outputs",
    "parameter",
    "parameters",
    "pattern",
    "patterns",
    "performance",
    "phase",
    "phases",
    "place",
    "point",
    "points",
    "problem",
    "problems",
    "process",
    "processes",
    "progress",
    "property",
    "properties",
    "quality",
    "range",
    "rate",
    "rates",
    "reason",
    "research",
    "result",
    "role",
    "rules",
    "run",
    "runs",
    "scale",
    "scheme",
    "schemes",
    "scope",
    "set",
    "sets",
    "setting",
    "settings",
    "signal",
    "signals",
    "signature",
    "size",
    "sizes",
    "solution",
    "solutions",
    "source",
    "sources",
    "space",
    "speed",
    "speed-up",
    "stage",
    "strategy",
    "strategies",
    "structure",
    "structures",
    "studies",
    "study",
    "system",
    "systems",
    "target",
    "targets",
    "technique",
    "techniques",
    "term",
    "terms",
    "test",
    "tests",
    "time",
    "tool",
    "tools",
    "type",
    "types",
    "understanding",
    "use",
    "value",
    "values",
    "variant",
    "variants",
    "version",
    "work",
    "workhorse",
    "yield",
    "yields",
    "alternative",
    "accuracy",
    "idea",
    "ideas",
    "line",
    "lines",
    "load",
    "job",
    "jobs",
    "code",
    "loop",
    "task",
    "tasks",
    "module",
    "modules",
    "component",
    "components",
    "region",
    "regions",
    "agent",
    "signals",
    "patients",
    "cells",
    "cell",
    "state",
    "states",
    "layer",
    "layers",
    "handles",
    "bonds",
    "site",
    "candidates",
    "candidate",
    "direction",
    "directions",
    "track",
    "prototype",
    "device",
    "fraction",
    "people",
    "researchers",
    "authors",
    "users",
    "user",
    "chemists",
    "biologists",
    "physicists",
    "engineers",
    "team",
    "learning",
    "training",
    "computation",
    "sample",
    "samples",
    "generation",
    "diversity",
    "architecture",
    "architectures",
    "environment",
    "environments",
    "action",
    "actions",
    "request",
    "requests",
    "plan",
    "plans",
    "core",
    "equation",
    "equations",
    "search",
    "deadline",
    "deadlines",
    "memory",
    "regulators",
    "screens",
    "water",
    "air",
    "chip",
    "pump",
    "trees",
    "tree",
    "map",
    "maps",
    "scores",
    "score",
    "step",
    "core",
    "signature",
    "onset",
    "origin",
    "cycle",
    "cycles",
    "lines",
    "features",
    "representations",
    "change",
    "changes",
    "complex",
    "complexes",
    "angle",
    "activity",
    "response",
    "responses",
    "control",
    "formation",
    "potentials",
    "distribution",
    "distributions",
    "policies",
    "policy",
    "fidelity",
    "language",
    "languages",
    "molecules",
    "molecule",
    "reactions",
    "reaction",
    "species",
    "material",
    "materials",
    "surface",
    "signalling",
    "mice",
    "mouse",
    "humans",
    "human",
    "patients",
    "people",
    "world",
    "nature",
    "life",
    "body",
    "energy",
    "power",
    "year",
    "years",
    "back",
    "addition",
    "density",
    "densities",
    "product",
    "products",
    "chunk",
    "bottleneck",
    "intensity",
    "management",
    "production",
    "stage",
    "stages",
    "notes",
    "note",
    "temperature",
    "temperatures",
    "dimension",
    "dimensions",
    "engineer",
    "substrates",
    "substrate",
    "isomers",
    "solvent",
    "networks",
    "network",
    "platform",
    "platforms",
    "protocols",
    "protocol",
    "detectors",
    "detector",
    "upgrades",
    "upgrade",
    "seminar",
    "checklist",
    "hiring",
    "team",
    "post",
    "months",
    "weeks",
    "week",
    "today",
    "yesterday",
    "gap",
    "gaps",
];

/// Verbs of academic prose (base forms); their inflections are generated, and every
/// form ends a run. Nouns that are also verbs ("model", "design") are not listed.
const VERBS: &[&str] = &[
    "accelerate",
    "achieve",
    "add",
    "address",
    "adopt",
    "adsorb",
    "affect",
    "aim",
    "allow",
    "analyse",
    "analyze",
    "appear",
    "apply",
    "argue",
    "assess",
    "attach",
    "attribute",
    "avoid",
    "become",
    "bind",
    "boost",
    "build",
    "calculate",
    "carry",
    "characterise",
    "characterize",
    "choose",
    "collapse",
    "combine",
    "compare",
    "compete",
    "complete",
    "compute",
    "confine",
    "confirm",
    "confound",
    "consider",
    "construct",
    "contain",
    "contribute",
    "convert",
    "correct",
    "create",
    "decay",
    "decompose",
    "decrease",
    "define",
    "deliver",
    "demonstrate",
    "depend",
    "deploy",
    "derive",
    "describe",
    "detect",
    "determine",
    "develop",
    "diversify",
    "dominate",
    "ease",
    "eliminate",
    "employ",
    "enable",
    "enhance",
    "ensure",
    "establish",
    "estimate",
    "evaluate",
    "examine",
    "exceed",
    "exhibit",
    "exist",
    "explain",
    "exploit",
    "explore",
    "extend",
    "facilitate",
    "fill",
    "find",
    "follow",
    "fragment",
    "generate",
    "give",
    "go",
    "highlight",
    "hold",
    "identify",
    "illustrate",
    "implement",
    "include",
    "incorporate",
    "indicate",
    "induce",
    "infer",
    "install",
    "integrate",
    "interact",
    "introduce",
    "investigate",
    "involve",
    "keep",
    "leave",
    "let",
    "leverage",
    "lie",
    "lose",
    "maintain",
    "make",
    "mean",
    "meet",
    "merge",
    "minimise",
    "minimize",
    "mitigate",
    "monitor",
    "motivate",
    "move",
    "observe",
    "obtain",
    "occur",
    "offer",
    "open",
    "outperform",
    "overcome",
    "oxidise",
    "oxidize",
    "pick",
    "predict",
    "preserve",
    "prevent",
    "produce",
    "promise",
    "propose",
    "protect",
    "prove",
    "provide",
    "push",
    "quantize",
    "quantise",
    "raise",
    "reach",
    "realise",
    "realize",
    "recover",
    "reduce",
    "reflect",
    "refresh",
    "relate",
    "rely",
    "remain",
    "remove",
    "render",
    "replace",
    "represent",
    "reproduce",
    "require",
    "resolve",
    "restore",
    "resume",
    "retain",
    "retrieve",
    "reveal",
    "say",
    "see",
    "seem",
    "select",
    "show",
    "simulate",
    "solve",
    "split",
    "stabilise",
    "stabilize",
    "stack",
    "steer",
    "suggest",
    "suppress",
    "surpass",
    "take",
    "tend",
    "tolerate",
    "treat",
    "turn",
    "uncover",
    "understand",
    "utilise",
    "utilize",
    "validate",
    "vary",
    "verify",
    "learn",
    "recommend",
    "assume",
    "come",
    "get",
    "look",
    "try",
    "want",
    "know",
    "think",
    "tell",
    "ask",
    "call",
    "lets",
    "perform",
    "stimulate",
    "optimise",
    "optimize",
    "serve",
    "speed",
    "lower",
    "halve",
    "regenerate",
    "harvest",
    "hydrogenate",
    "couple",
    "attain",
    "beat",
    "begin",
    "improve",
    "remap",
    "regulate",
    "constrain",
    "modulate",
    "misestimate",
    "redesign",
    "locate",
    "return",
    "respond",
    "encounter",
    "emerge",
    "arise",
    "rise",
    "fall",
    "drop",
    "grant",
    "span",
    "recruit",
    "express",
    "activate",
    "inhibit",
    "silence",
    "restrict",
    "cover",
    "survive",
    "spread",
];

/// Words that are nouns or verbs by position ("carbon capture" / "models capture"):
/// a verb after a plural noun or a subject pronoun or `to` (base form), or after a
/// pronoun (`-s` form); their `-ing` form is a verb unless it names a topic.
const NOUN_VERBS: &[&str] = &[
    "capture",
    "transfer",
    "release",
    "control",
    "design",
    "map",
    "match",
    "test",
    "link",
    "scale",
    "change",
    "increase",
    "report",
    "record",
    "support",
    "yield",
    "limit",
    "measure",
    "sample",
    "schedule",
    "store",
    "trade",
    "profile",
    "place",
    "point",
    "rule",
    "run",
    "host",
    "need",
    "lack",
    "benchmark",
    "rank",
    "gain",
    "shift",
    "double",
    "result",
    "use",
    "fit",
    "copy",
    "cut",
    "set",
    "lead",
    "trace",
    "mine",
    "bias",
    "work",
    "model",
    "train",
    "process",
    "form",
    "power",
    "drive",
    "guide",
    "help",
    "query",
    "cost",
    "focus",
    "plan",
    "search",
    "review",
    "target",
    "track",
    "signal",
    "label",
    "cluster",
    "code",
    "edit",
    "screen",
    "image",
    "sequence",
    "fold",
    "encode",
    "decode",
    "cause",
    "block",
    "damage",
    "grow",
    "write",
    "read",
    "mark",
    "answer",
    "disrupt",
    "question",
    "guarantee",
    "demand",
    "exchange",
    "balance",
    "process",
];

/// Irregular verb forms that end a run.
const IRREGULAR: &[&str] = &[
    "began",
    "begun",
    "bound",
    "brought",
    "built",
    "chose",
    "chosen",
    "done",
    "drawn",
    "driven",
    "fell",
    "found",
    "gave",
    "given",
    "gone",
    "grew",
    "grown",
    "held",
    "kept",
    "knew",
    "known",
    "led",
    "left",
    "lost",
    "made",
    "met",
    "paid",
    "put",
    "ran",
    "saw",
    "seen",
    "sent",
    "set",
    "shown",
    "sought",
    "spent",
    "stood",
    "taken",
    "thought",
    "told",
    "took",
    "understood",
    "went",
    "won",
    "wrote",
    "written",
    "is",
    "are",
    "was",
    "were",
];

/// Gerunds that name a topic ("training", "scheduling"): never treated as a verb form.
const GERUND_NOUNS: &[&str] = &[
    "binding",
    "building",
    "caching",
    "computing",
    "coupling",
    "decoding",
    "design",
    "designing",
    "editing",
    "engineering",
    "folding",
    "imaging",
    "learning",
    "mapping",
    "matching",
    "mining",
    "modeling",
    "modelling",
    "monitoring",
    "patching",
    "planning",
    "processing",
    "profiling",
    "programming",
    "ranking",
    "reasoning",
    "recording",
    "routing",
    "sampling",
    "scheduling",
    "screening",
    "sequencing",
    "serving",
    "signalling",
    "signaling",
    "steering",
    "testing",
    "tracking",
    "training",
    "tuning",
    "harvesting",
    "checkpointing",
    "rounding",
    "reranking",
    "autotuning",
    "pruning",
    "batching",
    "tracing",
    "clustering",
    "parsing",
    "forecasting",
    "fine-tuning",
    "pre-training",
    "pretraining",
    "denoising",
    "remapping",
    "oversmoothing",
    "coding",
    "labelling",
    "labeling",
    "clustering",
    "imaging",
    "signaling",
    "targeting",
    "controlling",
];

/// `-ly` words that are nouns, not adverbs.
const LY_NOUNS: &[&str] = &["anomaly", "assembly", "family", "monopoly", "supply", "poly", "rally", "italy", "ply"];

/// `-ed` words that are nouns.
const ED_NOUNS: &[&str] = &["seed", "speed", "feed", "bed", "shed", "red", "embed", "need", "reed", "breed"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Ends a run.
    Break,
    /// May begin or continue a phrase, never end one (participles, adjective suffixes).
    Modifier,
    /// A noun-like word that may end a phrase but is too general to stand alone.
    Generic,
    /// A noun-like word.
    Content,
}

fn inflections(base: &str) -> Vec<String> {
    let mut out = vec![base.to_string()];
    let (s, ed, ing) = if let Some(stem) = base.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'o', 'u'])) {
        (format!("{stem}ies"), format!("{stem}ied"), format!("{base}ing"))
    } else if let Some(stem) = base.strip_suffix('e') {
        (format!("{base}s"), format!("{base}d"), format!("{stem}ing"))
    } else if base.ends_with(['s', 'x', 'z']) || base.ends_with("sh") || base.ends_with("ch") || base.ends_with('o') {
        (format!("{base}es"), format!("{base}ed"), format!("{base}ing"))
    } else {
        let double = {
            let c: Vec<char> = base.chars().collect();
            let n = c.len();
            n >= 3
                && base.len() <= 4
                && !"aeiou".contains(c[n - 1])
                && !"wxy".contains(c[n - 1])
                && "aeiou".contains(c[n - 2])
                && !"aeiou".contains(c[n - 3])
        };
        if double {
            let last = base.chars().last().unwrap_or_default();
            (format!("{base}s"), format!("{base}{last}ed"), format!("{base}{last}ing"))
        } else {
            (format!("{base}s"), format!("{base}ed"), format!("{base}ing"))
        }
    };
    out.extend([s, ed, ing]);
    out
}

struct Lexicon {
    breaks: HashSet<String>,
    generic: HashSet<&'static str>,
    gerunds: HashSet<&'static str>,
    adj_suffix_nouns: HashSet<&'static str>,
}

static LEXICON: LazyLock<Lexicon> = LazyLock::new(|| {
    let gerunds: HashSet<&'static str> = GERUND_NOUNS.iter().copied().collect();
    let mut breaks: HashSet<String> = BREAK_WORDS.iter().map(|w| w.to_string()).collect();
    breaks.extend(IRREGULAR.iter().map(|w| w.to_string()));
    for v in VERBS {
        for f in inflections(v) {
            if !gerunds.contains(f.as_str()) {
                breaks.insert(f);
            }
        }
    }
    for v in NOUN_VERBS {
        let ing = inflections(v).pop().unwrap_or_default();
        if !gerunds.contains(ing.as_str()) {
            breaks.insert(ing);
        }
    }
    for n in crate::NON_TOPIC_TAGS {
        breaks.insert(n.to_string());
    }
    Lexicon {
        breaks,
        generic: GENERIC_NOUNS.iter().copied().collect(),
        gerunds,
        adj_suffix_nouns: ADJ_SUFFIX_NOUNS.iter().copied().collect(),
    }
});

fn classify(word: &str) -> Class {
    let lex = &*LEXICON;
    let n = word.chars().count();
    if n < 2
        || crate::words::is_function_word(word)
        || lex.breaks.contains(word)
        || !word.chars().any(char::is_alphabetic)
        || word.chars().next().is_some_and(|c| c.is_ascii_digit())
            && word.chars().filter(|c| c.is_alphabetic()).count() < 2
    {
        return Class::Break;
    }
    if lex.generic.contains(word) {
        return Class::Generic;
    }
    if lex.gerunds.contains(word) {
        return Class::Content;
    }
    if n > 4 && word.ends_with("ly") && !LY_NOUNS.contains(&word) {
        return Class::Break;
    }
    if n > 4 && word.ends_with("ed") && !ED_NOUNS.contains(&word) {
        return Class::Modifier;
    }
    if n > 5
        && ["ous", "ible", "able", "ful", "less", "ive", "ic", "ary", "ant", "ent"].iter().any(|s| word.ends_with(s))
        && !lex.adj_suffix_nouns.contains(word)
    {
        return Class::Modifier;
    }
    Class::Content
}

/// Nouns with an adjective-like ending.
const ADJ_SUFFIX_NOUNS: &[&str] = &[
    "objective",
    "derivative",
    "additive",
    "perspective",
    "primitive",
    "directive",
    "narrative",
    "adhesive",
    "explosive",
    "incentive",
    "initiative",
    "collective",
    "variable",
    "table",
    "cable",
    "logic",
    "topic",
    "music",
    "graphic",
    "clinic",
    "epidemic",
    "pandemic",
    "arithmetic",
    "mechanic",
    "plastic",
    "ceramic",
    "dynamic",
    "metric",
    "kinetic",
    "optic",
    "electrolytic",
    "library",
    "summary",
    "boundary",
    "dictionary",
    "inventory",
    "vocabulary",
    "primary",
    "secondary",
    "binary",
    "glossary",
    "anniversary",
    "salary",
    "diary",
    "capillary",
    "ancillary",
    "agent",
    "reagent",
    "solvent",
    "gradient",
    "coefficient",
    "component",
    "element",
    "experiment",
    "instrument",
    "treatment",
    "assessment",
    "alignment",
    "environment",
    "equipment",
    "segment",
    "sediment",
    "moment",
    "comment",
    "content",
    "patient",
    "client",
    "student",
    "current",
    "event",
    "extent",
    "talent",
    "percent",
    "parent",
    "agreement",
    "government",
    "management",
    "requirement",
    "measurement",
    "improvement",
    "development",
    "deployment",
    "enrichment",
    "replacement",
    "statement",
    "argument",
    "document",
    "fragment",
    "pigment",
    "ligament",
    "complement",
    "supplement",
    "entanglement",
    "confinement",
    "displacement",
    "settlement",
    "arrangement",
    "investment",
    "movement",
    "placement",
    "adjustment",
    "engagement",
    "commitment",
    "recruitment",
    "enantiomer",
    "constant",
    "variant",
    "mutant",
    "plant",
    "tenant",
    "applicant",
    "oxidant",
    "antioxidant",
    "dopant",
    "surfactant",
    "reactant",
    "pollutant",
    "coolant",
    "implant",
    "defendant",
    "assistant",
    "participant",
    "inhabitant",
    "pendant",
    "restaurant",
    "transient",
    "quotient",
    "nutrient",
    "recipient",
    "ingredient",
    "opponent",
    "exponent",
    "proponent",
    "deficient",
    "incident",
    "accident",
    "president",
    "resident",
    "precedent",
    "dividend",
    "sentiment",
    "antibiotic",
    "catalytic",
    "electrostatic",
    "phonic",
    "acoustic",
    "semantic",
    "heuristic",
    "statistic",
    "characteristic",
    "diagnostic",
    "prognostic",
    "logistic",
    "cosmetic",
    "magnetic",
    "genetic",
    "graphene",
    "anticipant",
    "insulant",
    "quantum",
];

// ---------------------------------------------------------------------------------
// Stem keys

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// One word's key: lower case, British spelling folded to American, then the
/// Snowball stem when it removes only an inflection (at most two letters: `catalysts`,
/// `batteries`, `coupled`); a longer cut is derivational (`tokenization` → `token`,
/// `scheduling` → `schedul`) and would merge different concepts, so then only a
/// plural `s` is removed.
fn word_key(word: &str) -> String {
    let w = american(&word.to_lowercase());
    let stem = STEMMER.stem(&w);
    if w.len() - stem.len() <= 2 && !w.ends_with("ing") {
        return stem.into_owned();
    }
    if w.len() > 4 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        return w[..w.len() - 1].to_string();
    }
    w
}

fn american(w: &str) -> String {
    let mut s = w.to_string();
    for (gb, us) in [("isation", "ization"), ("ising", "izing"), ("ised", "ized"), ("ise", "ize"), ("yse", "yze")] {
        if s.ends_with(gb) && s.len() > gb.len() + 2 {
            s.truncate(s.len() - gb.len());
            s.push_str(us);
            return s;
        }
    }
    for (gb, us) in [("isations", "izations"), ("ises", "izes"), ("yses", "yzes")] {
        if s.ends_with(gb) && s.len() > gb.len() + 2 {
            s.truncate(s.len() - gb.len());
            s.push_str(us);
            return s;
        }
    }
    if let Some(stem) = s.strip_suffix("our").filter(|st| st.len() >= 3 && !st.ends_with(['f', 'y'])) {
        return format!("{stem}or");
    }
    if let Some(stem) = s.strip_suffix("ours").filter(|st| st.len() >= 3 && !st.ends_with(['f', 'y'])) {
        return format!("{stem}ors");
    }
    if let Some(stem) = s.strip_suffix("tres").filter(|st| st.len() >= 3) {
        return format!("{stem}ters");
    }
    if let Some(stem) = s.strip_suffix("tre").filter(|st| st.len() >= 3) {
        return format!("{stem}ter");
    }
    if s.ends_with("lling") && s.len() > 7 {
        s.truncate(s.len() - 5);
        s.push_str("ling");
        return s;
    }
    if s.contains("ae") && s.len() > 6 {
        s = s.replace("haem", "hem").replace("aemia", "emia");
    }
    s
}

/// Whether a word (lower case) is one of the nouns too general to be a concept alone
/// (`model`, `results`, `framework`): in a longer phrase it adds little
/// (`graph-neural-networks-model` says what `graph-neural-networks` says).
pub fn is_generic_noun(word: &str) -> bool {
    GENERIC_NOUNS.contains(&word)
}

/// The stem key of a concept name (words joined by hyphens or spaces): what two
/// spellings of one concept share (`data-centres`, `Data Centers` → `data center`).
pub fn stem_key(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for w in name.split(|c: char| c == '-' || c == '_' || c.is_whitespace()).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&word_key(w));
    }
    out
}

// ---------------------------------------------------------------------------------
// The built-in vocabulary

#[derive(Deserialize)]
struct ConceptsFile {
    areas: BTreeMap<String, Vec<String>>,
}

/// The concept list shipped with attest (`concepts.toml`).
pub const CONCEPTS_TOML: &str = include_str!("concepts.toml");

/// The built-in vocabulary: `concepts.toml`, the arXiv field names and the alias
/// table's names, each canonicalised.
pub fn known() -> &'static Vocabulary {
    static KNOWN: LazyLock<Vocabulary> = LazyLock::new(|| {
        let file: ConceptsFile = toml::from_str(CONCEPTS_TOML).expect("the shipped concepts.toml parses");
        let canon = Canon::builtin();
        let names = file
            .areas
            .into_values()
            .flatten()
            .chain(ARXIV.iter().flat_map(|(_, t)| t.iter().map(|s| s.to_string())))
            .chain(canon.names())
            .map(|n| canon.canonical(&n))
            .filter(|n| !n.is_empty())
            .collect();
        Vocabulary::new(names)
    });
    &KNOWN
}

// ---------------------------------------------------------------------------------
// Candidates

/// A candidate concept of one item.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Its name: the vocabulary's spelling when known, else the canonical spelling.
    pub name: String,
    /// Its stem key ([`stem_key`]): what recurrence across items is counted by.
    pub key: String,
    /// Its words' keys, in order.
    words: Vec<String>,
    /// Its score within the item.
    pub score: f64,
    /// Whether the archive's vocabulary or the built-in one knows it.
    pub known: bool,
}

/// Phrases of one item that are named and scored (the rest cannot be among its best).
const NAMED_PER_ITEM: usize = 24;

/// How much a phrase's length adds: two and three words name specific concepts.
fn length_factor(words: usize) -> f64 {
    match words {
        1 => 1.0,
        2 => 1.6,
        3 => 1.8,
        _ => 1.3,
    }
}

/// Longest run of words considered one stretch of noun phrases.
const MAX_RUN: usize = 6;

/// Most candidates kept per item for [`select`].
pub const CANDIDATES_PER_ITEM: usize = 16;

struct Word {
    /// Lower case.
    lower: String,
    class: Class,
    /// Written in capitals (an acronym, `GNNs`, `MOF`).
    acronym: bool,
}

/// Cut a text into runs of words between breaks. Sentence and clause punctuation,
/// brackets and quotes end a run; hyphens and apostrophes inside a word do not. A
/// bracketed acronym right after a run is noted with the run (for the acronym table).
fn runs(text: &str, out: &mut Vec<Vec<Word>>, acronyms: &mut Vec<(String, Vec<String>)>) {
    let mut run: Vec<Word> = Vec::new();
    let mut word = String::new();
    let mut in_paren_after_run = false;
    let mut chars = text.chars().peekable();
    let mut prev = String::new();
    let flush_word = |word: &mut String, run: &mut Vec<Word>, out: &mut Vec<Vec<Word>>, prev: &mut String| {
        let w = word.trim_matches(|c: char| c == '-' || c == '\'' || c == '’');
        if !w.is_empty() {
            let mut lower = w.to_lowercase();
            if let Some(stem) = lower.strip_suffix("'s").or_else(|| lower.strip_suffix("’s")) {
                lower.truncate(stem.len());
            }
            let acronym = w.chars().filter(|c| c.is_uppercase()).count() >= 2;
            let after_plural = run.last().is_some_and(|w| plural(&w.lower) && w.class != Class::Modifier);
            let class = if verb_here(&lower, prev, run.last().map(|w| w.lower.as_str())) {
                Class::Break
            } else {
                classify(&lower)
            };
            // A plural noun ends its noun phrase ("water molecules | assign", "GPUs |
            // wastes"): English compounds take a singular modifier ("cell types").
            if after_plural
                && class != Class::Break
                && !run.last().is_some_and(|w| PLURAL_MODIFIERS.contains(&w.lower.as_str()))
            {
                out.push(std::mem::take(run));
            }
            prev.clear();
            prev.push_str(&lower);
            if class == Class::Break {
                if !run.is_empty() {
                    out.push(std::mem::take(run));
                }
            } else {
                run.push(Word { lower, class, acronym });
                // No noun phrase is this long: a run of more words is prose the word
                // lists missed, cut so that its sub-phrases stay few.
                if run.len() == MAX_RUN {
                    out.push(std::mem::take(run));
                }
            }
        }
        word.clear();
    };
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || ((c == '-' || c == '\'' || c == '’' || c == '–') && !word.is_empty()) {
            // An en dash inside a word (C–H) is a hyphen.
            word.push(if c == '–' { '-' } else { c });
            continue;
        }
        if c == '.' && !word.is_empty() && chars.peek().is_some_and(|n| n.is_alphanumeric()) {
            word.push(c);
            continue;
        }
        if in_paren_after_run && c == ')' {
            let acr = word.trim_end_matches('s');
            if let Some(last) = out.last().filter(|_| word.chars().filter(|c| c.is_uppercase()).count() >= 2) {
                acronyms.push((acr.to_lowercase(), last.iter().map(|w| w.lower.clone()).collect()));
            }
        }
        // The word's buffer is cleared and reused for the next word.
        flush_word(&mut word, &mut run, out, &mut prev);
        if !c.is_whitespace() {
            prev.clear();
            // Any other mark ends the run.
            if !run.is_empty() {
                out.push(std::mem::take(&mut run));
            }
            in_paren_after_run = c == '(';
        }
    }
    flush_word(&mut word, &mut run, out, &mut prev);
    if !run.is_empty() {
        out.push(run);
    }
}

/// An `-ing` word that is not a topic's name ("projecting", "handling").
fn verbal_ing(word: &str) -> bool {
    word.len() > 5
        && word.ends_with("ing")
        && !LEXICON.gerunds.contains(word)
        && (!word.contains('-') || word.starts_with("re-"))
}

/// A noun-or-verb word in any of its forms (never a concept alone: "match", "decode"):
/// a base of [`NOUN_VERBS`] followed by nothing, `s`, `es`, `d` or `ed` (which covers
/// a base in `e` losing it before `es`/`ed`), looked up in one set of every form.
fn noun_verb(word: &str) -> bool {
    static FORMS: LazyLock<HashSet<String>> = LazyLock::new(|| {
        NOUN_VERBS.iter().flat_map(|b| ["", "s", "es", "d", "ed"].map(|end| format!("{b}{end}"))).collect()
    });
    FORMS.contains(word)
}

fn plural(word: &str) -> bool {
    word.len() > 3 && word.ends_with('s') && !["ss", "us", "is", "ics", "ous", "'s"].iter().any(|e| word.ends_with(e))
}

/// Plural-looking words that do modify a following noun.
const PLURAL_MODIFIERS: &[&str] = &[
    "materials",
    "systems",
    "sales",
    "species",
    "series",
    "news",
    "lens",
    "communications",
    "savings",
    "goods",
    "arms",
    "sports",
    "jobs",
    "graphics",
    "operations",
    "means",
    "gas",
    "plus",
    "rules",
    "sciences",
    "parts",
    "tools",
    "data",
    "physics",
    "mathematics",
    "genomics",
    "dynamics",
    "electronics",
    "robotics",
    "economics",
    "statistics",
    "kinetics",
    "mechanics",
    "optics",
    "photonics",
    "proteomics",
    "metabolomics",
    "thermodynamics",
];

/// Whether a noun-or-verb word is a verb where it stands: after a plural noun, a
/// subject pronoun or `to` (base form), or after a singular noun (`-s` form).
fn verb_here(word: &str, prev_token: &str, prev_in_run: Option<&str>) -> bool {
    static BASES: LazyLock<HashSet<&'static str>> = LazyLock::new(|| NOUN_VERBS.iter().copied().collect());
    if BASES.contains(word) {
        return matches!(prev_token, "we" | "they" | "to" | "which" | "that" | "who" | "can" | "may" | "will" | "also")
            || prev_in_run.is_some_and(plural);
    }
    let base = word
        .strip_suffix("es")
        .filter(|b| BASES.contains(b))
        .or_else(|| word.strip_suffix('s').filter(|b| BASES.contains(b)));
    // The `-s` form is a verb only after a pronoun: after a noun it is as likely a
    // compound's plural ("diffusion models").
    base.is_some() && matches!(prev_token, "it" | "which" | "that" | "who" | "also")
}

/// The acronym an item spells out ("graph neural networks (GNNs)") as the words it
/// stands for: the last words of the run before it whose initials spell it.
fn expansion(acronym: &str, before: &[String]) -> Option<Vec<String>> {
    let letters: Vec<char> = acronym.chars().filter(|c| c.is_alphabetic()).collect();
    let n = letters.len();
    if !(2..=6).contains(&n) || before.len() < n {
        return None;
    }
    let tail = &before[before.len() - n..];
    let ok = tail.iter().zip(&letters).all(|(w, l)| w.chars().next().is_some_and(|c| c == *l));
    ok.then(|| tail.to_vec())
}

/// Scored candidate concepts of one item, best first (at most
/// [`CANDIDATES_PER_ITEM`]), named through `vocabulary`, then the built-in
/// vocabulary, then `canon`.
pub fn candidates(title: &str, abstract_: &str, vocabulary: &Vocabulary, canon: &Canon) -> Vec<Candidate> {
    candidates_in(title, abstract_, vocabulary, Some(known()), canon)
}

/// [`candidates`] with a given built-in vocabulary, or none (to measure what the
/// extractor does on the archive's words alone).
pub fn candidates_in(
    title: &str,
    abstract_: &str,
    vocabulary: &Vocabulary,
    builtin: Option<&Vocabulary>,
    canon: &Canon,
) -> Vec<Candidate> {
    let mut acronyms: Vec<(String, Vec<String>)> = Vec::new();
    let mut title_runs = Vec::new();
    let mut body_runs = Vec::new();
    runs(title, &mut title_runs, &mut acronyms);
    runs(abstract_, &mut body_runs, &mut acronyms);
    let acr: HashMap<String, Vec<String>> =
        acronyms.into_iter().filter_map(|(a, before)| expansion(&a, &before).map(|e| (a, e))).collect();
    // Surface phrase (words joined by hyphens) → (weight, whether it ended a run once),
    // sized for every sub-phrase the runs can give.
    let phrases: usize =
        title_runs.iter().chain(&body_runs).map(|r| (1..=r.len()).map(|k| k.min(4)).sum::<usize>()).sum();
    let mut found: HashMap<String, (f64, bool)> = HashMap::with_capacity(phrases);
    // Each phrase is spelled into this buffer (no list of words to join per phrase).
    let mut surface = String::new();
    for (runs, weight) in [(&title_runs, 3.0), (&body_runs, 1.0)] {
        for run in runs.iter() {
            // A run ends at its last noun-like word: trailing participles ("models
            // revisited") are not part of the phrase.
            let n = run.iter().rposition(|w| w.class != Class::Modifier).map_or(0, |i| i + 1);
            for start in 0..n {
                for len in 1..=4.min(n - start) {
                    let phrase = &run[start..start + len];
                    let last = &phrase[len - 1];
                    if last.class == Class::Modifier || phrase.iter().all(|w| w.class == Class::Generic) {
                        continue;
                    }
                    // "projecting gradients", "handling CO gas": a verb's -ing form
                    // leads a clause, not a concept (it may end one: "ball milling").
                    if verbal_ing(&phrase[0].lower) && (len > 1 || phrase[0].lower.starts_with("re-")) {
                        continue;
                    }
                    if len == 1 && ((last.lower.chars().count() < 4 && !last.acronym) || noun_verb(&last.lower)) {
                        continue;
                    }
                    surface.clear();
                    let expansion = if len == 1 { acr.get(last.lower.trim_end_matches('s')) } else { None };
                    match expansion {
                        Some(e) => push_joined(&mut surface, e.iter().map(String::as_str)),
                        None => push_joined(&mut surface, phrase.iter().map(|w| w.lower.as_str())),
                    }
                    let e = found.entry(surface.clone()).or_insert((0.0, false));
                    e.0 += weight;
                    e.1 |= start + len == n;
                }
            }
        }
    }
    // Name each surface and merge surfaces of one concept by stem key.
    let mut word_keys: HashMap<String, String> = HashMap::new();
    let mut by_key: HashMap<String, Candidate> = HashMap::new();
    // Naming a phrase (aliases, fold and stem keys, two vocabularies) is the costly
    // part: name only the phrases that could be among the item's best, by their
    // weight and length, then in name order.
    // Each surface's provisional score is computed once; the best NAMED_PER_ITEM by
    // (score, then name) are picked without sorting the rest (names are unique, so the
    // order is total and the pick is the same as a full sort's first ones).
    let mut surfaces: Vec<(f64, String, (f64, bool))> = found
        .into_iter()
        .map(|(s, wh)| (wh.0 * length_factor(s.bytes().filter(|&b| b == b'-').count() + 1), s, wh))
        .collect();
    if surfaces.len() > NAMED_PER_ITEM {
        surfaces.select_nth_unstable_by(NAMED_PER_ITEM - 1, |a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        surfaces.truncate(NAMED_PER_ITEM);
    }
    surfaces.sort_unstable_by(|a, b| a.1.cmp(&b.1));
    for (_, surface, (weight, head)) in surfaces {
        let (canonical, fold) = canon.canonical_folded(&surface);
        if canonical.is_empty() {
            continue;
        }
        // Word keys are cached per item: a word recurs in many sub-phrases.
        let mut key = String::with_capacity(canonical.len());
        for w in canonical.split('-').filter(|w| !w.is_empty()) {
            if !key.is_empty() {
                key.push(' ');
            }
            match word_keys.get(w) {
                Some(k) => key.push_str(k),
                None => {
                    let k = word_key(w);
                    key.push_str(&k);
                    word_keys.insert(w.to_string(), k);
                }
            }
        }
        let (name, known) = match vocabulary.lookup_folded(&canonical, &fold, &key) {
            Some(n) => (n, true),
            None => match builtin.and_then(|b| b.lookup_folded(&canonical, &fold, &key)) {
                Some(n) => (n, true),
                None => (canonical.clone(), false),
            },
        };
        // A phrase that never ends a run is a modifier there ("batch" in "batch
        // effects", "single-cell RNA" in "single-cell RNA sequencing"): a concept only
        // when a vocabulary names it.
        let single = !key.contains(' ');
        if !head && (!known || single) {
            continue;
        }
        // A lone adjective ("computational", "chemical") is no concept unless known.
        if single && !known && (canonical.ends_with("al") || canonical.ends_with("ic") || verbal_ing(&canonical)) {
            continue;
        }
        let words: Vec<String> = key.split(' ').map(str::to_string).collect();
        let factor = length_factor(words.len());
        let c = by_key.entry(key.clone()).or_insert_with(|| Candidate {
            name: name.clone(),
            key: key.clone(),
            words,
            score: 0.0,
            known,
        });
        c.score += weight * factor;
        if known && !c.known {
            c.known = true;
            c.name = name;
        } else if !c.known && name < c.name {
            c.name = name;
        }
    }
    let mut out: Vec<Candidate> = by_key.into_values().collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
    out.truncate(CANDIDATES_PER_ITEM);
    out
}

/// Append `words` to `out`, joined by hyphens.
fn push_joined<'a>(out: &mut String, words: impl Iterator<Item = &'a str>) {
    for (i, w) in words.enumerate() {
        if i > 0 {
            out.push('-');
        }
        out.push_str(w);
    }
}

fn contains_seq(long: &[String], short: &[String]) -> bool {
    short.len() <= long.len() && long.windows(short.len()).any(|w| w == short)
}

/// The concepts of a batch of items (each item's [`candidates`]), at most `max` per
/// item, best first: known concepts, and others only when at least two items of the
/// batch carry them. One spelling per concept across the batch (the most used, then
/// the first by name).
pub fn select(items: &[Vec<Candidate>], max: usize) -> Vec<Vec<String>> {
    select_with(items, max, &Policy::default())
}

/// How [`select_with`] keeps candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Items of the batch an unknown phrase must appear in.
    pub min_items: usize,
    /// Drop a candidate scoring under this share of the item's best.
    pub floor: f64,
    /// Keep an unknown phrase of one item when its score reaches this; `None`: never.
    /// The default, 1.6, is a phrase of two words or more (or a title word): a noun
    /// phrase the item itself leans on, stored so that a later item can recur onto it.
    pub anchored: Option<f64>,
    /// How much more a known concept counts.
    pub known_factor: f64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy { min_items: 2, floor: 0.065, anchored: Some(1.6), known_factor: 3.0 }
    }
}

impl Policy {
    /// Only concepts: known or recurring in the batch, never a phrase of one item.
    pub fn concepts_only() -> Policy {
        Policy { anchored: None, ..Policy::default() }
    }
}

/// [`select`] under a given [`Policy`].
pub fn select_with(items: &[Vec<Candidate>], max: usize, policy: &Policy) -> Vec<Vec<String>> {
    let mut df: HashMap<&str, usize> = HashMap::new();
    let mut spellings: HashMap<&str, BTreeMap<&str, usize>> = HashMap::new();
    for cands in items {
        for c in cands {
            *df.entry(c.key.as_str()).or_default() += 1;
            *spellings.entry(c.key.as_str()).or_default().entry(c.name.as_str()).or_default() += 1;
        }
    }
    let spelling = |key: &str| -> String {
        spellings[key]
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(n, _)| n.to_string())
            .unwrap_or_default()
    };
    items
        .iter()
        .map(|cands| {
            let mut scored: Vec<(&Candidate, f64)> = cands
                .iter()
                .filter(|c| {
                    c.known || df[c.key.as_str()] >= policy.min_items || policy.anchored.is_some_and(|a| c.score >= a)
                })
                .map(|c| {
                    let n = df[c.key.as_str()] as f64;
                    let s = c.score * if c.known { policy.known_factor } else { 1.0 } * (1.0 + 0.25 * n.ln());
                    (c, s)
                })
                .collect();
            scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.key.cmp(&b.0.key)));
            let top = scored.first().map_or(0.0, |s| s.1);
            let mut chosen: Vec<&Candidate> = Vec::new();
            for (c, s) in scored {
                if chosen.len() == max || s < top * policy.floor {
                    break;
                }
                // A phrase inside one already chosen (or holding one), or one that
                // continues it ("neutron-stars" then "star-merger"), adds nothing.
                if chosen.iter().any(|o| {
                    contains_seq(&o.words, &c.words)
                        || contains_seq(&c.words, &o.words)
                        || o.words.last() == c.words.first()
                        || c.words.last() == o.words.first()
                }) {
                    continue;
                }
                chosen.push(c);
            }
            let mut names: Vec<String> = Vec::new();
            for c in chosen {
                let n = if c.known { c.name.clone() } else { spelling(&c.key) };
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            names
        })
        .collect()
}

/// Up to `max` concepts for one item from its title and abstract: only those
/// `vocabulary` (or the built-in vocabulary) knows, since one item alone cannot show
/// a phrase recurring. For a batch, use [`candidates`] and [`select`].
pub fn extract(title: &str, abstract_: &str, vocabulary: &Vocabulary, canon: &Canon, max: usize) -> Vec<String> {
    select(&[candidates(title, abstract_, vocabulary, canon)], max).pop().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arxiv_categories_map_to_field_names() {
        assert_eq!(
            arxiv_tags(&["cs.LG", "stat.ML", "cs.CL"]),
            ["machine-learning", "statistics", "computation-and-language", "natural-language-processing"]
        );
        assert_eq!(arxiv_tags(&["q-bio.BM", "xx.YY", "physics.chem-ph"]), ["biomolecules", "chemical-physics"]);
        for (code, names) in ARXIV {
            for n in *names {
                assert!(!n.contains('.'), "{code} → {n} is a code, not a name");
            }
        }
    }

    #[test]
    fn stem_keys_meet_across_spellings() {
        assert_eq!(stem_key("data-centres"), stem_key("Data Centers"));
        assert_eq!(stem_key("catalysts"), stem_key("catalyst"));
        assert_eq!(stem_key("functionalisation"), stem_key("functionalization"));
        assert_eq!(stem_key("tumours"), stem_key("tumors"));
        assert_ne!(stem_key("catalysis"), stem_key("catalyst"));
    }

    #[test]
    fn candidates_are_noun_phrases() {
        let c = candidates(
            "An amine catalyst lets chemists build rings",
            "Checkpointing policies chosen by the scheduler cut costs. Graph neural networks (GNNs) help; GNNs scale.",
            &Vocabulary::default(),
            Canon::builtin(),
        );
        let names: Vec<&str> = c.iter().map(|c| c.name.as_str()).collect();
        assert!(names.contains(&"amine-catalyst"), "{names:?}");
        assert!(names.contains(&"graph-neural-networks"), "{names:?}");
        for bad in ["amine-catalyst-lets", "catalyst-lets", "checkpointing-policies-chosen", "policies-chosen", "gnns"]
        {
            assert!(!names.contains(&bad), "{bad} in {names:?}");
        }
    }

    #[test]
    fn recurring_known_or_anchored() {
        let v = Vocabulary::default();
        let canon = Canon::builtin();
        let items = [
            ("Sparse attention kernels for long contexts", "Sparse attention kernels cut memory traffic."),
            ("Sparse attention kernels, revisited", "Block layouts for sparse attention kernels on GPUs."),
            ("Enamide hydrogenation", "A rhodium complex hydrogenates enamides."),
        ];
        let cands: Vec<Vec<Candidate>> = items.iter().map(|(t, a)| candidates(t, a, &v, canon)).collect();
        let tags = select(&cands, 4);
        assert_eq!(tags[0], ["sparse-attention-kernels", "long-contexts"]);
        assert_eq!(tags[2], ["hydrogenation", "rhodium-complex"], "known, and a noun phrase of the item's own");
        let strict = select_with(&cands, 4, &Policy::concepts_only());
        assert_eq!(strict[0], ["sparse-attention-kernels"]);
        assert_eq!(strict[2], ["hydrogenation"], "a one-item phrase is dropped, a lone word always");
        assert_eq!(tags, select(&cands, 4), "deterministic");
    }
}
