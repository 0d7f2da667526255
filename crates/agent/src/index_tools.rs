//! `find_symbol`, `find_references`, `search_code`: the index answering the model, in
//! the same words as over MCP. The first call builds the index if there is none, and
//! every call first brings it up to date with the working tree (an incremental update;
//! files anyone else changed included). The agent's own writes and commands update it
//! before their results return (see [`IndexTools::after_edit`]), so answers never come
//! from before an edit.

use std::path::PathBuf;
use std::sync::Arc;

use mcursor_index::{FindQuery, Index, IndexError, LiveIndex, RefsQuery, SearchQuery, answers};
use mcursor_syntax::RefKind;
use serde_json::{Value, json};

use crate::{ToolError, ToolSpec, nonempty_arg};

const FIND_LIMIT: usize = 50;
const REFS_LIMIT: usize = 1000;
/// Bytes of an answer before the window is known (a 64,000-token window's share).
const DEFAULT_ANSWER_BUDGET: usize = 1_600 * 4;
const SEARCH_LIMIT: usize = 50;

pub fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "find_symbol".into(),
            description: "Where a symbol is defined: exact lookup by name or `Type::method`."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"]
            }),
        },
        ToolSpec {
            name: "find_references".into(),
            description: "Who uses a symbol (a name or `path:line`), best first. Optional: \
                          kind (call, type, import), path (a directory), offset."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "target": {"type": "string"},
                    "kind": {"type": "string"},
                    "path": {"type": "string"},
                    "offset": {"type": "integer"}
                },
                "required": ["target"]
            }),
        },
        ToolSpec {
            name: "search_code".into(),
            description: "Full-text search: words, \"phrases\" or regex; path: a glob.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "regex": {"type": "boolean"},
                    "path": {"type": "string"}
                },
                "required": ["query"]
            }),
        },
    ]
}

pub fn is_index_tool(name: &str) -> bool {
    matches!(name, "find_symbol" | "find_references" | "search_code")
}

/// The repository's index as the agent's tools see it: a [`LiveIndex`] (built on first
/// use, following the tree, updated at once after the agent's own edits).
pub struct IndexTools {
    live: LiveIndex,
    /// Bytes one answer for the model may take (see `set_answer_budget`).
    answer_budget: std::sync::atomic::AtomicUsize,
}

fn index_error(e: IndexError) -> ToolError {
    ToolError::Index(e.to_string())
}

impl IndexTools {
    pub fn new(root: PathBuf) -> Self {
        IndexTools {
            live: LiveIndex::new(&root),
            answer_budget: std::sync::atomic::AtomicUsize::new(DEFAULT_ANSWER_BUDGET),
        }
    }

    fn fresh(&self) -> Result<Arc<Index>, ToolError> {
        self.live.get(&|_| {}).map_err(index_error)
    }

    /// Brings the index up to date after the agent wrote `path` (absolute; `None` when
    /// unknown or after a command, which walks the tree), before the tool's result goes
    /// back to the model: the next `find_symbol` already sees the edit.
    pub fn after_edit(&self, path: Option<PathBuf>) {
        self.live.after_change(path.map(|p| vec![p]));
    }

    /// How many bytes an answer for the model may take: what the context window allows
    /// one result ([`IndexTools::set_answer_budget`]).
    fn answer_budget(&self) -> usize {
        self.answer_budget
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Sizes answers for a model with a context window of `tokens`: about a fortieth of it
    /// (400 tokens of a 16,000 window), at least 300 tokens and at most 2,000, 4 bytes a
    /// token.
    pub fn set_answer_budget(&self, context_window_tokens: usize) {
        let tokens = (context_window_tokens / 40).clamp(300, 2_000);
        self.answer_budget
            .store(tokens * 4, std::sync::atomic::Ordering::Relaxed);
    }

    /// Runs one index tool (synchronous: call it from a blocking thread).
    pub fn run(&self, name: &str, args: &Value) -> Result<String, ToolError> {
        match name {
            "find_symbol" => {
                let name = nonempty_arg(args, "name")?;
                let index = self.fresh()?;
                let page = index.find_page(&FindQuery {
                    limit: Some(FIND_LIMIT),
                    ..FindQuery::exact(name)
                });
                if page.hits.is_empty() {
                    return Ok(answers::missing(name, &index.similar_names(name, 5)));
                }
                let lines: Vec<String> = page.hits.iter().map(answers::symbol_line).collect();
                Ok(answers::fit_lines(
                    &lines,
                    page.total,
                    page.total_at_least,
                    self.answer_budget(),
                    "use a qualified name such as Type::method to narrow",
                ))
            }
            "find_references" => {
                let target = nonempty_arg(args, "target")?;
                let index = self.fresh()?;
                let definitions = match answers::targets(&index, target).map_err(index_error)? {
                    answers::Targets::Found(definitions) => definitions,
                    answers::Targets::Missing { suggestions } => {
                        return Ok(answers::missing(target, &suggestions));
                    }
                };
                let kind = match args.get("kind").and_then(Value::as_str) {
                    // What small models write for "no filter".
                    None | Some("" | "all" | "any" | "*") => None,
                    Some(word) => Some(RefKind::parse(word).ok_or_else(|| {
                        ToolError::BadArguments(format!(
                            "kind `{word}`: one of {}",
                            RefKind::ALL.map(RefKind::as_str).join(", ")
                        ))
                    })?),
                };
                let under = args.get("path").and_then(Value::as_str).map(str::to_owned);
                let offset = args.get("offset").and_then(Value::as_u64).unwrap_or(0) as usize;
                let page = index.references_page(
                    &definitions,
                    &RefsQuery {
                        kind,
                        under: under.clone(),
                        limit: Some(REFS_LIMIT),
                        ..RefsQuery::default()
                    },
                );
                if page.hits.is_empty() {
                    // A filter that left nothing is not "nothing refers to it".
                    if kind.is_some() || under.is_some() {
                        let everywhere = index.references_page(
                            &definitions,
                            &RefsQuery {
                                limit: Some(0),
                                ..RefsQuery::default()
                            },
                        );
                        if everywhere.total > 0 {
                            return Ok(format!(
                                "no uses of {target} match kind={} path={}; it has {} uses in all: call again without kind and path to see them",
                                kind.map_or("(any)", RefKind::as_str),
                                under.as_deref().unwrap_or("(any)"),
                                everywhere.total
                            ));
                        }
                    }
                    let unread = index.unread_mentions(&definitions).map_err(index_error)?;
                    if !unread.is_empty() {
                        return Ok(answers::unread(target, &unread));
                    }
                }
                Ok(answers::ranked_references(
                    target,
                    &definitions,
                    &page.hits,
                    page.total,
                    offset,
                    self.answer_budget(),
                ))
            }
            "search_code" => {
                let query = nonempty_arg(args, "query")?;
                let regex = args.get("regex").and_then(Value::as_bool).unwrap_or(false);
                let path_glob = args.get("path").and_then(Value::as_str).map(str::to_owned);
                let index = self.fresh()?;
                let page = index
                    .search_page(&SearchQuery {
                        query: query.to_owned(),
                        regex,
                        path_glob,
                        lang: None,
                        limit: SEARCH_LIMIT,
                    })
                    .map_err(index_error)?;
                if page.hits.is_empty() {
                    return Ok(answers::search(&page.hits));
                }
                let lines: Vec<String> = answers::search(&page.hits)
                    .lines()
                    .map(str::to_owned)
                    .collect();
                Ok(answers::fit_lines(
                    &lines,
                    page.total,
                    page.total_at_least,
                    self.answer_budget(),
                    "narrow with a path glob or more words",
                ))
            }
            other => Err(ToolError::BadArguments(format!(
                "{other} is not an index tool"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_call_builds_the_index_and_later_ones_see_edits() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn parse_config() {}\n").expect("write");
        let tools = IndexTools::new(dir.path().to_path_buf());
        let found = tools
            .run("find_symbol", &json!({"name": "parse_config"}))
            .expect("find");
        assert!(
            found.starts_with("src/lib.rs:1:8 function parse_config"),
            "{found}"
        );
        assert!(dir.path().join(".mcursor").is_dir());

        // An edit by someone else (not through the agent's tools) shows once the next
        // check for outside changes is due.
        std::fs::write(
            dir.path().join("src/lib.rs"),
            "pub fn load_config() {}\npub fn main() { load_config(); }\n",
        )
        .expect("edit");
        std::thread::sleep(mcursor_index::live::LOOK_EVERY + std::time::Duration::from_millis(100));
        let gone = tools
            .run("find_symbol", &json!({"name": "parse_config"}))
            .expect("find");
        assert!(gone.starts_with("no symbol named parse_config"), "{gone}");
        let refs = tools
            .run("find_references", &json!({"target": "load_config"}))
            .expect("refs");
        assert!(
            refs.starts_with("load_config is used 1 time: 1 resolved"),
            "{refs}"
        );
        assert!(refs.contains("\nsrc/lib.rs:2:17 [call in main"), "{refs}");
        let search = tools
            .run("search_code", &json!({"query": "load config"}))
            .expect("search");
        assert!(
            search.contains("src/lib.rs:1: pub fn load_config() {}"),
            "{search}"
        );
        assert!(matches!(
            tools.run("find_symbol", &json!({"name": 3})),
            Err(ToolError::BadArguments(_))
        ));
        // A huge query is refused before any search work.
        let huge = tools.run("search_code", &json!({"query": "a ".repeat(50_000)}));
        assert!(
            matches!(&huge, Err(ToolError::Index(m)) if m.contains("at most 4096")),
            "{huge:?}"
        );
        let many = tools.run("search_code", &json!({"query": "word ".repeat(40)}));
        assert!(
            matches!(&many, Err(ToolError::Index(m)) if m.contains("40 words")),
            "{many:?}"
        );
    }

    #[test]
    fn references_for_a_model_come_best_first_within_a_budget_with_the_way_on() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("src/net")).expect("mkdir");
        // Resolved calls in lib.rs, name matches through an unknown receiver in net/.
        let mut lib = String::from("pub fn target() {}\n");
        for i in 0..30 {
            lib.push_str(&format!("pub fn caller{i}() {{ target(); }}\n"));
        }
        std::fs::write(dir.path().join("src/lib.rs"), lib).expect("write");
        let mut net = String::from("pub fn go(x: &dyn std::any::Any) {\n");
        for _ in 0..30 {
            net.push_str("    x.target();\n");
        }
        net.push_str("}\n");
        std::fs::write(dir.path().join("src/net/mod.rs"), net).expect("write");
        let tools = IndexTools::new(dir.path().to_path_buf());
        tools.set_answer_budget(16_000);
        let first = tools
            .run("find_references", &json!({"target": "target"}))
            .expect("refs");
        let lines: Vec<&str> = first.lines().collect();
        assert!(lines[0].contains("resolved (30 call)"), "{first}");
        assert!(lines[1].contains("resolved"), "{first}");
        assert!(first.len() <= 400 * 4 + 200, "{} bytes", first.len());
        let footer = lines.last().copied().unwrap_or_default();
        assert!(footer.contains("offset="), "{first}");
        let shown = lines.len() - 2;
        let next = tools
            .run(
                "find_references",
                &json!({"target": "target", "offset": shown}),
            )
            .expect("refs");
        assert!(
            next.contains(&format!("uses {}-", shown + 1)) || !next.contains("offset="),
            "{next}"
        );
        let calls = tools
            .run(
                "find_references",
                &json!({"target": "target", "kind": "call", "path": "src/lib.rs"}),
            )
            .expect("refs");
        assert!(
            calls
                .lines()
                .skip(1)
                .all(|l| l.starts_with("src/lib.rs") || l.starts_with('(')),
            "{calls}"
        );
        assert!(matches!(
            tools.run(
                "find_references",
                &json!({"target": "target", "kind": "sometimes"})
            ),
            Err(ToolError::BadArguments(_))
        ));
        // A filter that leaves nothing says that there are uses elsewhere; "all" is no
        // filter, and a path may be a glob.
        let elsewhere = tools
            .run(
                "find_references",
                &json!({"target": "target", "path": "lib/Session.cpp"}),
            )
            .expect("refs");
        assert!(
            elsewhere.starts_with("no uses of target match"),
            "{elsewhere}"
        );
        assert!(elsewhere.contains("uses in all"), "{elsewhere}");
        let all = tools
            .run(
                "find_references",
                &json!({"target": "target", "kind": "all", "path": "src/**/*.rs"}),
            )
            .expect("refs");
        assert!(all.starts_with("target is used"), "{all}");
    }
}
