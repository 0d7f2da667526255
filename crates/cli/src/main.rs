//! The `mcursor` binary: argument parsing, terminal rendering, `--json` output and exit
//! codes over the index crate's query API, the agent (`ask`), the benchmark and the MCP
//! server.
//!
//! Exit codes: 0 success with results, 1 success without results (as grep), 2 error.
//! `--json` prints machine-readable output on stdout and nothing else there; messages go
//! to stderr. Colors only on a terminal, never with `NO_COLOR`.

mod allocator;
mod ask;
mod config;
mod render;
mod sandbox;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use mcursor_index::{
    BuildOptions, FindQuery, FreshnessScope, INDEX_DIR, Index, IndexError, LockWait, Page,
    Progress, RefTarget, RefsQuery, SearchQuery, SymbolHit, WatchEvent, WatchOptions, build_index,
};
use mcursor_syntax::{Lang, RefKind, SymbolKind};
use mcursor_tools::wire;

use crate::render::Out;

#[derive(Parser)]
#[command(
    name = "mcursor",
    version,
    about = "A coding agent that knows the code it works on: a code index (definitions, references, call graph, code search) and an agent on any OpenAI-compatible model.",
    after_help = "Exit status: 0 results found, 1 nothing found, 2 error.\nStart with `mcursor index` in a repository, then `mcursor find NAME`."
)]
struct Cli {
    /// Run as if started in DIR.
    #[arg(short = 'C', global = true, value_name = "DIR")]
    directory: Option<PathBuf>,
    /// Given before the command, for every command that prints; `mcp` prints only its
    /// protocol and takes neither.
    #[command(flatten)]
    output: OutputArgs,
    #[command(subcommand)]
    command: Command,
}

/// How a command prints. Accepted before the command and after it; not global, so that
/// `mcp --help` does not offer what means nothing there.
#[derive(Args, Clone, Copy, Default)]
pub(crate) struct OutputArgs {
    /// Print JSON on stdout instead of text.
    #[arg(long)]
    json: bool,
    /// When to color the output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
}

impl OutputArgs {
    /// These options, with what was given before the command where nothing was after.
    fn or(self, before: OutputArgs) -> OutputArgs {
        OutputArgs {
            json: self.json || before.json,
            color: match self.color {
                ColorWhen::Auto => before.color,
                chosen => chosen,
            },
        }
    }
}

#[derive(Args)]
struct StatusArgs {
    /// List every file with syntax errors (`path:line` of its first error) instead of
    /// the summary.
    #[arg(long)]
    syntax_errors: bool,
    #[command(flatten)]
    output: OutputArgs,
}

/// A command whose only options say how it prints.
#[derive(Args)]
struct OutputOnly {
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Build or refresh the index of PATH (default: the current directory) in PATH/.mcursor/.
    Index(IndexArgs),
    /// Keep the index of PATH current while files change (Ctrl-C stops).
    Watch(WatchArgs),
    /// Where is NAME defined? Accepts `name`, `Type::method`, `Class.method`, `module::name`.
    Find(FindArgs),
    /// Who uses a symbol? TARGET is a name or a position `PATH:LINE[:COL]`.
    Refs(RefsArgs),
    /// What implements a trait, interface or class (with the methods that answer for
    /// its members), or overrides a method; transitively (a subclass's subclasses).
    Impls(ImplsArgs),
    /// What a change to TARGET can affect: its uses (grouped by kind) and
    /// implementations, then the uses of the definitions those are in, to --depth.
    Impact(ImpactArgs),
    /// The index as JSON Lines on stdout, for other tools: a header line, then every
    /// symbol, then every edge (references, implementations, overrides).
    Export(ExportArgs),
    /// Who calls a function (the call graph upwards).
    Callers(CallArgs),
    /// What a function calls (the call graph downwards).
    Callees(CallArgs),
    /// Full-text code search: words match whole identifiers and their sub-words.
    Search(SearchArgs),
    /// What the index holds and whether files changed since it was built.
    Status(StatusArgs),
    /// Serve the index to other agents over the Model Context Protocol: stdio, or
    /// streamable HTTP with --http.
    Mcp(McpArgs),
    /// Ask the coding agent: an OpenAI-compatible model with file, shell and index tools.
    Ask(ask::AskArgs),
    /// Time symbol lookups through the index against rg, git grep and grep on this
    /// repository, with the lines each answer makes you read and grep's precision.
    Bench(BenchArgs),
    /// The sandbox `ask` runs commands in: what this machine enforces, tried for real.
    #[command(subcommand)]
    Sandbox(SandboxCommand),
    /// Run PROGRAM confined by POLICY (the agent's helper; not for direct use).
    #[command(hide = true, name = "sandbox-exec")]
    SandboxExec {
        /// Stage 2, inside the new namespaces.
        #[arg(long)]
        inner: bool,
        /// The policy, as JSON.
        policy: String,
        #[arg(last = true, required = true)]
        program: Vec<std::ffi::OsString>,
    },
    /// Tools for measuring and debugging mcursor itself.
    #[command(hide = true, subcommand)]
    Debug(DebugCommand),
}

impl Command {
    /// The output options given after the command (none for those that take none).
    fn output(&self) -> OutputArgs {
        match self {
            Command::Index(args) => args.output,
            Command::Watch(args) => args.output,
            Command::Find(args) => args.output,
            Command::Refs(args) => args.output,
            Command::Impls(args) => args.output,
            Command::Impact(args) => args.output,
            Command::Export(_) => OutputArgs::default(),
            Command::Callers(args) | Command::Callees(args) => args.output,
            Command::Search(args) => args.output,
            Command::Status(args) => args.output,
            Command::Sandbox(SandboxCommand::Doctor(only)) => only.output,
            Command::Ask(args) => args.output,
            Command::Bench(args) => args.output,
            Command::Mcp(_) | Command::SandboxExec { .. } | Command::Debug(_) => {
                OutputArgs::default()
            }
        }
    }
}

#[derive(Subcommand)]
enum SandboxCommand {
    /// Report what the kernel supports, try every protection on a scratch workspace
    /// (writes outside, .git/config, credentials, the agent's environment, sockets,
    /// processes left behind), and list what this workspace protects and hides.
    /// Exit 0 when commands run confined.
    Doctor(OutputOnly),
}

#[derive(Subcommand)]
enum DebugCommand {
    /// Walk, read and parse PATH like `index` does, without building an index (the parse
    /// ceiling that benchmarks compare indexing against).
    ParseOnly {
        path: Option<PathBuf>,
        #[arg(long, short = 'j')]
        threads: Option<usize>,
    },
    /// Print every fact of the index, sorted and without generation numbers or times:
    /// two indexes of the same tree print the same.
    Dump,
    /// Print where the index's bytes go: the store's sections, its compressed blocks,
    /// the facts cache's parts (declarations, outcomes, references) and the
    /// text index.
    Sizes,
    /// Print what extraction finds in one file (definitions with their types, references
    /// with their receivers, containers, imports), without an index.
    Facts {
        /// The source file.
        file: PathBuf,
    },
    /// Try to open a TCP and a UDP socket; exit 0 when both are refused (the sandbox
    /// doctor runs this inside the sandbox).
    ProbeNetwork,
}

#[derive(Args)]
struct IndexArgs {
    /// The repository root to index.
    path: Option<PathBuf>,
    /// Rebuild from scratch even if an index exists (otherwise only files that changed
    /// since the last run are parsed again, and nothing is written when none did).
    #[arg(long)]
    full: bool,
    /// Exit at once if another mcursor is writing this index, instead of waiting.
    #[arg(long)]
    no_wait: bool,
    /// Files you know changed (an editor hook, a script): when each is an indexed file
    /// whose edit keeps its definitions, the tree is not walked. Otherwise, or for
    /// anything else, a normal update runs.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "full")]
    changed: Vec<PathBuf>,
    #[command(flatten)]
    build: BuildFlags,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Args)]
struct BuildFlags {
    /// Skip files larger than this many bytes (default: the limit the index was built
    /// with, else 1 MiB).
    #[arg(long, value_name = "BYTES")]
    max_file_size: Option<u64>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    threads: Option<usize>,
    /// Give up on one file's parse after this many milliseconds.
    #[arg(long, default_value_t = DEFAULT_PARSE_TIMEOUT_MS, value_name = "MS")]
    parse_timeout_ms: u64,
}

/// `--parse-timeout-ms` when not given.
const DEFAULT_PARSE_TIMEOUT_MS: u64 = 5000;

impl BuildFlags {
    /// Whether every flag is as when not given (a running watcher's updates then serve).
    fn are_defaults(&self) -> bool {
        self.max_file_size.is_none()
            && self.threads.is_none()
            && self.parse_timeout_ms == DEFAULT_PARSE_TIMEOUT_MS
    }

    fn options(&self, full: bool, lock_wait: LockWait) -> BuildOptions {
        let defaults = BuildOptions::default();
        BuildOptions {
            max_file_size: self.max_file_size,
            threads: self.threads.unwrap_or(defaults.threads),
            parse_timeout: Duration::from_millis(self.parse_timeout_ms),
            lock_wait,
            full,
            ..defaults
        }
    }
}

#[derive(Args)]
struct WatchArgs {
    /// The repository root to watch.
    path: Option<PathBuf>,
    /// Quiet time after the last change of a burst before the index is updated.
    #[arg(long, default_value_t = 20, value_name = "MS")]
    debounce_ms: u64,
    /// Rescan every --poll-ms instead of asking the OS for change notifications (network
    /// file systems such as NFS, SMB and sshfs send none).
    #[arg(long)]
    poll: bool,
    /// Rescan interval when polling (--poll, or when the OS cannot watch the tree).
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    poll_ms: u64,
    /// Do not keep every file's declarations in memory between updates: an edit that
    /// changes an interface then reads them from the facts cache again (about 0.5 s on a
    /// 16,000-file tree), and the watcher holds only what an update needs while it runs
    /// (without it, what an update frees is also kept for the next one until 10 s pass
    /// without a change).
    #[arg(long)]
    low_memory: bool,
    #[command(flatten)]
    build: BuildFlags,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Args)]
struct FindArgs {
    /// The name: `parse_config`, or qualified: `Session::run`, `Store.add`,
    /// `builder::Command` (with --prefix: the start of names).
    #[arg(value_parser = clap::builder::NonEmptyStringValueParser::new())]
    name: String,
    /// Only this kind (function, method, struct, class, enum, enum_variant, interface,
    /// trait, type_alias, constant, static, variable, field, module, macro).
    #[arg(long, value_parser = parse_symbol_kind)]
    kind: Option<SymbolKind>,
    #[arg(long, value_parser = parse_lang, value_name = "LANG", help = lang_help("Only definitions in"))]
    lang: Option<Lang>,
    /// Names starting with NAME.
    #[arg(long, conflicts_with = "fuzzy")]
    prefix: bool,
    /// Names similar to NAME (labeled as fuzzy matches).
    #[arg(long)]
    fuzzy: bool,
    /// Show at most this many (a line on stderr says when there are more).
    #[arg(long, default_value_t = 100)]
    limit: usize,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Args)]
struct RefsArgs {
    /// A name, as for `find`, or a position `PATH:LINE[:COL]` (PATH relative to the
    /// current directory or the repository root, or absolute).
    #[arg(value_parser = clap::builder::NonEmptyStringValueParser::new())]
    target: String,
    /// Only this kind of use (call, type, import, macro, field, identifier).
    #[arg(long, value_parser = parse_ref_kind)]
    kind: Option<RefKind>,
    /// Leave out references matched by name only.
    #[arg(long)]
    resolved_only: bool,
    /// Leave out calls through a trait, interface or base-class member that TARGET
    /// implements or overrides (labeled `dispatch`).
    #[arg(long)]
    direct: bool,
    /// Only uses in this file, below this directory, or matching this glob (relative
    /// to the root).
    #[arg(long, value_name = "PATH")]
    under: Option<String>,
    /// Show at most this many (a line on stderr says when there are more).
    #[arg(long, default_value_t = 1000)]
    limit: usize,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Args)]
struct ImplsArgs {
    /// A trait, interface, class or method: a name, as for `find`, or a position
    /// `PATH:LINE[:COL]`.
    #[arg(value_parser = clap::builder::NonEmptyStringValueParser::new())]
    target: String,
    /// Show at most this many (a line on stderr says when there are more).
    #[arg(long, default_value_t = 1000)]
    limit: usize,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Args)]
struct ImpactArgs {
    /// A definition: a name, as for `find`, or a position `PATH:LINE[:COL]`.
    #[arg(value_parser = clap::builder::NonEmptyStringValueParser::new())]
    target: String,
    /// How many levels to follow (1: direct uses only).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=16))]
    depth: u32,
    /// Show at most this many sites (the summary counts them all).
    #[arg(long, default_value_t = 1000)]
    limit: usize,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Args)]
struct ExportArgs {
    /// Only the symbols.
    #[arg(long, conflicts_with = "edges")]
    symbols: bool,
    /// Only the edges.
    #[arg(long)]
    edges: bool,
    /// Only records of this kind: a symbol kind (function, struct, class...) or an edge
    /// kind (call, type, import, macro, field, identifier, implements, overrides).
    #[arg(long, value_name = "KIND")]
    kind: Option<String>,
    /// Export even when files changed since the index was built (the header says
    /// `"stale": true`).
    #[arg(long)]
    allow_stale: bool,
}

#[derive(Args)]
struct McpArgs {
    /// Serve over streamable HTTP on ADDR (`127.0.0.1:8765`; port 0 picks one) instead
    /// of stdio. Any address but loopback needs MCURSOR_MCP_TOKEN set: clients then send
    /// `Authorization: Bearer TOKEN`.
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// Keep the index current with a watcher inside the server, as `mcursor watch` does
    /// (unless one already runs): saves are indexed as they happen, and lookups no
    /// longer walk the tree to look for changes. It holds every file's declarations in
    /// memory (the server's RSS 60 → 440 MiB on a tree of 16,000 files) unless
    /// `--low-memory` is given.
    #[arg(long)]
    watch: bool,
    /// With `--watch`: the watcher does not keep every file's declarations in memory
    /// between updates (as `mcursor watch --low-memory`).
    #[arg(long, requires = "watch")]
    low_memory: bool,
}

#[derive(Args)]
struct CallArgs {
    /// A function or method: a name, as for `find`, or a position `PATH:LINE[:COL]`.
    #[arg(value_parser = clap::builder::NonEmptyStringValueParser::new())]
    target: String,
    /// How many levels to follow (1 or more).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: u32,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Args)]
struct BenchArgs {
    /// The indexed repository (default: the index that covers the current directory).
    path: Option<PathBuf>,
    /// How many names to look up, split evenly across rare, medium and very common ones.
    #[arg(long, default_value_t = 60)]
    queries: usize,
    /// Rounds over all names; each round times every tool once per name.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Seed for choosing the names (the same seed and index give the same names).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Ground truth written by `mcursor-synth`: adds precision and recall of both
    /// questions for every tool.
    #[arg(long, value_name = "FILE")]
    truth: Option<PathBuf>,
    /// Also draw the comparison as an SVG picture into FILE.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Also write the whole report as JSON into FILE (what `--json` prints), keeping the
    /// table on the terminal.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Args)]
struct SearchArgs {
    /// Words (each matches whole identifiers and their sub-words: `parseFile` finds
    /// `parse_file`), "quoted phrases", or with --regex a regular expression.
    #[arg(value_parser = clap::builder::NonEmptyStringValueParser::new())]
    query: String,
    /// QUERY is a regular expression, matched line by line.
    #[arg(long, short = 'e')]
    regex: bool,
    /// Only paths matching this glob (e.g. 'src/**/*.rs').
    #[arg(long, value_name = "GLOB")]
    path: Option<String>,
    #[arg(long, value_parser = parse_lang, value_name = "LANG", help = lang_help("Only files in"))]
    lang: Option<Lang>,
    /// Show at most this many lines, best first (a line on stderr says when there are
    /// more).
    #[arg(long, default_value_t = 50)]
    limit: usize,
    #[command(flatten)]
    output: OutputArgs,
}

fn parse_symbol_kind(s: &str) -> Result<SymbolKind, String> {
    SymbolKind::parse(s).ok_or_else(|| {
        let all: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
        format!("unknown kind; one of: {}", all.join(", "))
    })
}

fn parse_ref_kind(s: &str) -> Result<RefKind, String> {
    RefKind::parse(s).ok_or_else(|| {
        let all: Vec<&str> = RefKind::ALL.iter().map(|k| k.as_str()).collect();
        format!("unknown kind; one of: {}", all.join(", "))
    })
}

/// `--lang`: a language of the language table, or an alias (`rs`, `ts`). A language
/// mcursor reads as text only (`python`) is refused with what to use instead.
fn parse_lang(word: &str) -> Result<Lang, String> {
    if let Some(lang) = Lang::parse(word) {
        return Ok(lang);
    }
    let parsed = Lang::names().collect::<Vec<_>>().join(", ");
    match mcursor_syntax::TextOnlyLanguage::named(word) {
        Some(text_only) => Err(format!(
            "{} files are indexed as text only: they have no symbols (symbols are indexed for {parsed}); `mcursor search --path '**/*.{}'` searches them",
            text_only.name,
            text_only.extensions.first().copied().unwrap_or("*")
        )),
        None => Err(format!(
            "unknown language; symbols are indexed for {parsed}"
        )),
    }
}

/// The help line of `--lang`, listing the languages from the table.
fn lang_help(what: &str) -> String {
    format!(
        "{what} this language: {}",
        Lang::names().collect::<Vec<_>>().join(", ")
    )
}

/// The outcome of a command, mapped to an exit code.
enum Found {
    Some,
    None,
}

impl Found {
    fn unless_empty<T>(results: &[T]) -> Found {
        if results.is_empty() {
            Found::None
        } else {
            Found::Some
        }
    }
}

fn main() -> ExitCode {
    allocator::install_tree_sitter_hooks();
    let cli = Cli::parse();
    // The sandbox helper runs before anything else could start a thread.
    if let Command::SandboxExec {
        inner,
        policy,
        program,
    } = &cli.command
    {
        let code = mcursor_sandbox::exec_main(policy, *inner, program);
        return ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX));
    }
    let output = cli.command.output().or(cli.output);
    match output.color {
        ColorWhen::Auto => {}
        ColorWhen::Always => anstream::ColorChoice::Always.write_global(),
        ColorWhen::Never => anstream::ColorChoice::Never.write_global(),
    }
    let mut out = Out::new(output.json);
    let result = run(&cli, &mut out);
    let flushed = out.flush();
    match (result, flushed) {
        (Ok(Found::Some), _) => ExitCode::SUCCESS,
        (Ok(Found::None), _) => ExitCode::from(1),
        (Err(e), _) if render::is_broken_pipe(&e) => ExitCode::SUCCESS,
        (Err(e), _) => {
            let mut stderr = anstream::stderr();
            // Errors can quote a server's reply or a file's name: no raw control bytes.
            let _ = writeln!(
                stderr,
                "{}error:{} {}",
                render::ERROR.render(),
                render::ERROR.render_reset(),
                render::terminal_safe(&format!("{e:#}"))
            );
            ExitCode::from(2)
        }
    }
}

fn working_dir(cli: &Cli) -> Result<PathBuf> {
    let dir = match &cli.directory {
        Some(d) => d.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    if !dir.is_dir() {
        let err = if dir.exists() {
            IndexError::NotADirectory(dir)
        } else {
            IndexError::MissingPath(dir)
        };
        return Err(err.into());
    }
    Ok(dir)
}

fn run(cli: &Cli, out: &mut Out) -> Result<Found> {
    let cwd = working_dir(cli)?;
    match &cli.command {
        Command::Index(args) => index(&cwd, args, out),
        Command::Watch(args) => watch(&cwd, args, out),
        Command::Find(args) => find(&open(&cwd)?, args, out),
        Command::Refs(args) => refs(&open(&cwd)?, &cwd, args, out),
        Command::Impls(args) => impls(&open(&cwd)?, &cwd, args, out),
        Command::Impact(args) => impact(&open(&cwd)?, &cwd, args, out),
        Command::Export(args) => export(&open(&cwd)?, args, out),
        Command::Callers(args) => calls(&open(&cwd)?, &cwd, args, true, out),
        Command::Callees(args) => calls(&open(&cwd)?, &cwd, args, false, out),
        Command::Search(args) => search(&open(&cwd)?, args, out),
        Command::Status(args) => status(&open(&cwd)?, args, out),
        Command::Bench(args) => bench(&cwd, args, out),
        Command::Ask(args) => Ok(if ask::run(&cwd, args, out.json)? {
            Found::Some
        } else {
            Found::None
        }),
        Command::Mcp(args) => {
            // Stopped (between updates) and joined when the server is done.
            let _watch = if args.watch {
                mcp_watch(&cwd, !args.low_memory)?
            } else {
                None
            };
            match args.http {
                None => mcursor_mcp::serve_stdio(&cwd)?,
                Some(address) => {
                    let token = std::env::var("MCURSOR_MCP_TOKEN").ok();
                    let with_token = token.as_deref().is_some_and(|t| !t.is_empty());
                    mcursor_mcp::serve_http(&cwd, address, token, |bound| {
                        let _ = render::message(&format!(
                            "MCP on http://{bound}{} ({}); Ctrl-C stops",
                            mcursor_mcp::MCP_PATH,
                            if with_token {
                                "bearer token required"
                            } else {
                                "this machine only, no token"
                            }
                        ));
                    })?
                }
            }
            Ok(Found::Some)
        }
        Command::Sandbox(SandboxCommand::Doctor(_)) => Ok(if sandbox::doctor(&cwd, out)? {
            Found::Some
        } else {
            Found::None
        }),
        Command::SandboxExec { .. } => {
            anyhow::bail!("sandbox-exec runs before the other commands")
        }
        Command::Debug(DebugCommand::ProbeNetwork) => Ok(if sandbox::probe_network() {
            Found::Some
        } else {
            Found::None
        }),
        Command::Debug(DebugCommand::ParseOnly { path, threads }) => {
            let root = path.as_ref().map_or(cwd.clone(), |p| cwd.join(p));
            let mut options = BuildOptions::default();
            if let Some(threads) = threads {
                options.threads = *threads;
            }
            let report = mcursor_index::parse_only(&root, &options)?;
            out.json_value(&report)?;
            Ok(Found::Some)
        }
        Command::Debug(DebugCommand::Dump) => {
            out.text(&open(&cwd)?.dump()?)?;
            Ok(Found::Some)
        }
        Command::Debug(DebugCommand::Sizes) => {
            out.text(&open(&cwd)?.sizes())?;
            Ok(Found::Some)
        }
        Command::Debug(DebugCommand::Facts { file }) => {
            let path = cwd.join(file);
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            let lang =
                Lang::of_file(&path, &String::from_utf8_lossy(&bytes)).with_context(|| {
                    format!(
                        "{} is not in a language mcursor parses ({})",
                        path.display(),
                        Lang::names().collect::<Vec<_>>().join(", ")
                    )
                })?;
            let facts =
                mcursor_syntax::parse_source(lang, &bytes, &mcursor_syntax::ParseConfig::default());
            out.text(&mcursor_syntax::describe_facts(&facts))?;
            Ok(Found::Some)
        }
    }
}

fn open(cwd: &Path) -> Result<Index> {
    Ok(Index::open(cwd)?)
}

/// The root a command without PATH works on: like git, the index that covers this
/// directory, if any, else the directory itself.
fn root_for(cwd: &Path, path: &Option<PathBuf>) -> PathBuf {
    match path {
        Some(p) => cwd.join(p),
        None => mcursor_index::find_root(cwd).unwrap_or_else(|_| cwd.to_path_buf()),
    }
}

fn index(cwd: &Path, args: &IndexArgs, out: &mut Out) -> Result<Found> {
    let root = root_for(cwd, &args.path);
    let lock_wait = if args.no_wait {
        LockWait::Fail
    } else {
        LockWait::Wait
    };
    let mut options = args.build.options(args.full, lock_wait);
    if !args.changed.is_empty() {
        let changed = args
            .changed
            .iter()
            .map(|p| std::fs::canonicalize(cwd.join(p)).unwrap_or_else(|_| cwd.join(p)))
            .collect();
        options.changed_paths = Some(changed);
    }
    let bar = render::progress_bar("files");
    let report = |p: Progress| match p {
        Progress::WaitingForLock { holder } => {
            bar.println(format!(
                "waiting: the index is being written by {holder} (a running `mcursor watch` hands over when its update is done)"
            ));
        }
        Progress::Walked { files } => {
            bar.set_length(files as u64);
            bar.set_message("parsing");
        }
        Progress::Parsed { done, total } => {
            bar.set_length(total as u64);
            bar.set_position(done as u64)
        }
        Progress::Writing => bar.set_message("resolving names and writing"),
    };
    // A running `mcursor watch` makes the update when asked to do what it does anyway
    // (its declarations and tables are in memory; loading them is most of an update
    // here). `--full`, `--no-wait` or any build flag keep it here (the watcher would
    // update with its own).
    let handed = (!args.full && !args.no_wait && args.build.are_defaults())
        .then(|| {
            bar.set_message("asking `mcursor watch`");
            let handed = mcursor_index::update_by_watcher(
                &root.join(INDEX_DIR),
                options.changed_paths.clone(),
            );
            bar.set_message("walking");
            handed
        })
        .flatten();
    let watcher_pid = handed.as_ref().map(|handed| handed.watcher_pid);
    let summary = match handed {
        Some(handed) => Ok(handed.summary),
        None => build_index(&root, &options, &report),
    };
    bar.finish_and_clear();
    let summary = summary?;
    if out.json {
        // The files with syntax errors, named (the summary only counts them).
        let mut value = serde_json::to_value(&summary)?;
        if let (Some(pid), Some(fields)) = (watcher_pid, value.as_object_mut()) {
            fields.insert("updated_by_watcher".into(), pid.into());
        }
        if summary.syntax_errors > 0
            && let Some(fields) = value.as_object_mut()
        {
            let errors =
                Index::open_root(&root)?.syntax_errors(mcursor_index::STATUS_SYNTAX_ERRORS);
            fields.insert(
                "syntax_error_files".into(),
                serde_json::to_value(&errors.files)?,
            );
        }
        out.json_value(&value)?;
    } else {
        render::index_summary(out, &summary)?;
        if let Some(pid) = watcher_pid {
            out.text(&format!(
                "  by the running `mcursor watch` (pid {pid}), which keeps this index current\n"
            ))?;
        }
    }
    Ok(Found::Some)
}

fn watch(cwd: &Path, args: &WatchArgs, out: &mut Out) -> Result<Found> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let root = root_for(cwd, &args.path);
    let options = WatchOptions {
        build: args.build.options(false, LockWait::Wait),
        debounce: Duration::from_millis(args.debounce_ms),
        poll_interval: Duration::from_millis(args.poll_ms.max(100)),
        poll: args.poll,
        hold_declarations: !args.low_memory,
        release_memory: Some(allocator::release_freed_memory),
        ..WatchOptions::default()
    };
    // `--low-memory` asks for the smallest footprint, not the fastest updates.
    if !args.low_memory {
        allocator::hold_freed_memory();
    }
    // Ctrl-C and SIGTERM end the loop between updates, so the index is left committed.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(async {
            let Ok(mut terminate) =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            else {
                let _ = tokio::signal::ctrl_c().await;
                return;
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
        });
        flag.store(true, Ordering::SeqCst);
    });
    let mut failure = None;
    let mut report = |event: WatchEvent| {
        if let Err(e) = render::watch_event(out, &event) {
            // Nobody reads our output any more (a closed pipe): stop watching.
            failure.get_or_insert(e);
            stop.store(true, Ordering::SeqCst);
        }
    };
    mcursor_index::watch(
        &root,
        &options,
        &|| stop.load(Ordering::SeqCst),
        &mut report,
    )?;
    if let Some(e) = failure {
        return Err(e);
    }
    if !out.json {
        eprintln!("stopped; the index is current as of the last update");
    }
    Ok(Found::Some)
}

/// The watcher of `mcursor mcp --watch`, on a thread beside the server; `None` when a
/// running `mcursor watch` already keeps the index current. Only what needs a person
/// (failures, polling and its advice) goes to stderr: stdout may be the protocol.
fn mcp_watch(
    cwd: &Path,
    hold_declarations: bool,
) -> Result<Option<mcursor_index::BackgroundWatch>> {
    let root = root_for(cwd, &None);
    let report = |event: WatchEvent| match event {
        WatchEvent::Polling(why) | WatchEvent::Rescan(why) | WatchEvent::Failed(why) => {
            let _ = render::message(&format!("mcursor mcp --watch: {why}"));
        }
        WatchEvent::Ready(_) | WatchEvent::Updated(_) | WatchEvent::Compacted { .. } => {}
    };
    let ended = |result: mcursor_index::Result<()>| {
        if let Err(e) = result {
            let _ = render::message(&format!("mcursor mcp --watch: not watching: {e}"));
        }
    };
    let options = WatchOptions {
        hold_declarations,
        release_memory: Some(allocator::release_freed_memory),
        ..WatchOptions::default()
    };
    let watch = mcursor_index::BackgroundWatch::start(&root, options, report, ended)
        .context("cannot start the watcher's thread")?;
    match &watch {
        // Its loop releases what is held; `--low-memory` holds nothing.
        Some(_) if hold_declarations => allocator::hold_freed_memory(),
        Some(_) => {}
        None => render::message("a running `mcursor watch` keeps the index current")?,
    }
    Ok(watch)
}

fn not_found(index: &Index, name: &str, out: &mut Out) -> Result<Found> {
    if out.json {
        out.json_value(&Vec::<wire::Definition>::new())?;
    }
    let suggestions = index.similar_names(name, 5);
    render::no_symbol(name, &suggestions, &index.text_only_files())?;
    Ok(Found::None)
}

/// After an answer: a line on stderr when the index may be behind the tree in what the
/// answer depends on.
fn say_freshness(index: &Index, scope: FreshnessScope) -> Result<()> {
    if let Some(warning) = index.freshness(scope).warning() {
        render::warning(&warning)?;
    }
    Ok(())
}

/// After a list cut at a limit: how many there are, and how to see more.
fn say_cut<T>(page: &Page<T>, how: &str) -> Result<()> {
    if let Some(shown) = page.shown() {
        render::message(&format!("{shown}; {how}"))?;
    }
    Ok(())
}

fn find(index: &Index, args: &FindArgs, out: &mut Out) -> Result<Found> {
    let page = index.find_page(&FindQuery {
        name: args.name.clone(),
        kind: args.kind,
        lang: args.lang,
        prefix: args.prefix,
        fuzzy: args.fuzzy,
        limit: Some(args.limit),
    });
    if page.hits.is_empty() {
        let found = not_found(index, &args.name, out)?;
        say_freshness(index, FreshnessScope::Symbols)?;
        return Ok(found);
    }
    if out.json {
        out.json_value(&wire::all::<_, wire::Definition>(&page.hits))?;
    } else {
        if args.fuzzy {
            out.note(&format!("fuzzy matches for `{}` (not exact):", args.name))?;
        }
        for hit in &page.hits {
            render::symbol(out, hit)?;
        }
    }
    out.flush()?;
    say_cut(&page, "--limit N for more")?;
    say_freshness(index, FreshnessScope::Symbols)?;
    Ok(Found::Some)
}

/// The definitions TARGET names; a position's PATH may be relative to the current
/// directory, relative to the root, or absolute.
fn targets(
    index: &Index,
    cwd: &Path,
    target: &str,
    out: &mut Out,
) -> Result<Option<Vec<SymbolHit>>> {
    let parsed = match RefTarget::parse(target) {
        RefTarget::Location { path, line, column } => RefTarget::Location {
            path: repository_path(index.root(), cwd, &path),
            line,
            column,
        },
        name => name,
    };
    let hits = index.targets(&parsed)?;
    if hits.is_empty() {
        not_found(index, target, out)?;
        say_freshness(index, FreshnessScope::Symbols)?;
        return Ok(None);
    }
    Ok(Some(hits))
}

/// PATH of a `PATH:LINE` position as the index names files: an absolute path, or one
/// relative to the current directory, that names a file below the root becomes relative
/// to the root; anything else is taken as relative to the root already.
fn repository_path(root: &Path, cwd: &Path, path: &str) -> String {
    let candidate = cwd.join(path);
    if let (Ok(file), Ok(root)) = (candidate.canonicalize(), root.canonicalize())
        && let Ok(relative) = file.strip_prefix(&root)
        && let Some(relative) = relative.to_str()
        && !relative.is_empty()
    {
        return relative.replace(std::path::MAIN_SEPARATOR, "/");
    }
    path.to_owned()
}

fn refs(index: &Index, cwd: &Path, args: &RefsArgs, out: &mut Out) -> Result<Found> {
    let Some(targets) = targets(index, cwd, &args.target, out)? else {
        return Ok(Found::None);
    };
    let page = index.references_page(
        &targets,
        &RefsQuery {
            kind: args.kind,
            resolved_only: args.resolved_only,
            direct_only: args.direct,
            under: args.under.clone(),
            limit: Some(args.limit),
        },
    );
    let hits = &page.hits;
    if out.json {
        out.json_value(&wire::all::<_, wire::Reference>(hits))?;
    } else {
        let several_targets = targets.len() > 1;
        for hit in hits {
            render::reference(out, hit, several_targets)?;
        }
    }
    out.flush()?;
    if !out.json {
        let implementations = index.implementations(&targets);
        if !implementations.is_empty() {
            render::message(&format!(
                "implemented by: {}",
                implementations
                    .iter()
                    .map(|i| format!(
                        "{} ({}:{})",
                        i.qualified_name,
                        mcursor_index::escape_controls(&i.path),
                        i.line
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))?;
        }
    }
    if hits.is_empty() {
        let defined_at = targets
            .iter()
            .map(|t| format!("{}:{}", mcursor_index::escape_controls(&t.path), t.line))
            .collect::<Vec<_>>()
            .join(", ");
        let unread = index.unread_mentions(&targets)?;
        if unread.is_empty() {
            render::message(&format!(
                "{} is defined ({defined_at}), but nothing in the index refers to it",
                args.target
            ))?;
        } else {
            render::unread(&args.target, &defined_at, &unread)?;
        }
    }
    say_cut(&page, "--limit N for more")?;
    say_freshness(index, FreshnessScope::Symbols)?;
    Ok(Found::unless_empty(hits))
}

fn impls(index: &Index, cwd: &Path, args: &ImplsArgs, out: &mut Out) -> Result<Found> {
    let Some(targets) = targets(index, cwd, &args.target, out)? else {
        return Ok(Found::None);
    };
    let mut page = index.implementors(&targets);
    if page.hits.len() > args.limit {
        page.hits.truncate(args.limit);
    }
    if out.json {
        out.json_value(&wire::all::<_, wire::Implementation>(&page.hits))?;
    } else {
        for hit in &page.hits {
            render::implementation(out, hit)?;
        }
    }
    out.flush()?;
    if page.hits.is_empty() {
        render::message(&mcursor_tools::answers::no_implementations(
            &args.target,
            &targets,
        ))?;
    }
    say_cut(&page, "--limit N for more")?;
    say_freshness(index, FreshnessScope::Symbols)?;
    Ok(Found::unless_empty(&page.hits))
}

fn impact(index: &Index, cwd: &Path, args: &ImpactArgs, out: &mut Out) -> Result<Found> {
    let Some(targets) = targets(index, cwd, &args.target, out)? else {
        return Ok(Found::None);
    };
    let found = index.impact(&targets, args.depth);
    let shown = &found.sites[..found.sites.len().min(args.limit)];
    if out.json {
        let mut value = wire::impact(&targets, &found, shown);
        if let Some(fields) = value.as_object_mut() {
            fields.insert("total".into(), found.sites.len().into());
            fields.insert(
                "truncated".into(),
                (found.truncated || shown.len() < found.sites.len()).into(),
            );
        }
        out.json_value(&value)?;
    } else {
        render::impact(out, shown)?;
        out.flush()?;
        render::message(&mcursor_tools::answers::impact_summary(
            &args.target,
            args.depth,
            &found,
        ))?;
        if !found.per_file.is_empty() {
            let files: Vec<String> = found
                .per_file
                .iter()
                .take(10)
                .map(|(path, n)| format!("{} {n}", mcursor_index::escape_controls(path)))
                .collect();
            let more = found.per_file.len().saturating_sub(10);
            render::message(&format!(
                "sites per file: {}{}",
                files.join(", "),
                if more > 0 {
                    format!(" (+{more} more files)")
                } else {
                    String::new()
                }
            ))?;
        }
    }
    out.flush()?;
    if shown.len() < found.sites.len() {
        render::message(&format!(
            "{} of {} sites shown; --limit N for more",
            shown.len(),
            found.sites.len()
        ))?;
    }
    say_freshness(index, FreshnessScope::Symbols)?;
    Ok(Found::unless_empty(&found.sites))
}

fn export(index: &Index, args: &ExportArgs, out: &mut Out) -> Result<Found> {
    // Which streams: both unless one is asked for; a kind belongs to one of them.
    let symbol_kind = args.kind.as_deref().and_then(SymbolKind::parse);
    let edge_kind = args
        .kind
        .as_deref()
        .and_then(|k| mcursor_index::EdgeKind::words().find(|w| *w == k));
    if let Some(kind) = &args.kind
        && symbol_kind.is_none()
        && edge_kind.is_none()
    {
        let symbols: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
        let edges: Vec<&str> = mcursor_index::EdgeKind::words().collect();
        anyhow::bail!(
            "--kind {kind}: not a symbol kind ({}) or an edge kind ({})",
            symbols.join(", "),
            edges.join(", ")
        );
    }
    let want_symbols = !args.edges && (args.kind.is_none() || symbol_kind.is_some());
    let want_edges = !args.symbols && (args.kind.is_none() || edge_kind.is_some());
    if !want_symbols && !want_edges {
        anyhow::bail!(
            "--kind {} selects no records of the stream asked for",
            args.kind.as_deref().unwrap_or_default()
        );
    }
    let freshness = index.freshness(FreshnessScope::Symbols);
    let warning = freshness.warning();
    if let Some(warning) = &warning {
        if !args.allow_stale {
            anyhow::bail!(
                "{warning}\nexport refused: other tools would take a stale export for the tree; --allow-stale exports it anyway, marked stale in its header"
            );
        }
        render::warning(warning)?;
    }
    let mut contents = Vec::new();
    if want_symbols {
        contents.push("symbols");
    }
    if want_edges {
        contents.push("edges");
    }
    out.json_value(&wire::ExportHeader::new(
        index.generation(),
        warning.is_some(),
        contents,
        args.kind.clone(),
    ))?;
    if want_symbols {
        for symbol in index.export_symbols() {
            if symbol_kind.is_none_or(|k| k == symbol.symbol.kind) {
                out.json_value(&wire::SymbolRecord::from(&symbol))?;
            }
        }
    }
    if want_edges {
        for edge in index.export_edges() {
            if edge_kind.is_none_or(|k| k == edge.kind.as_str()) {
                out.json_value(&wire::EdgeRecord::from(&edge))?;
            }
        }
    }
    out.flush()?;
    Ok(Found::Some)
}

fn calls(
    index: &Index,
    cwd: &Path,
    args: &CallArgs,
    callers: bool,
    out: &mut Out,
) -> Result<Found> {
    let Some(targets) = targets(index, cwd, &args.target, out)? else {
        return Ok(Found::None);
    };
    let depth = args.depth as usize;
    let page = if callers {
        index.callers(&targets, depth)
    } else {
        index.callees(&targets, depth)
    };
    let edges = &page.hits;
    if out.json {
        out.json_value(&wire::all::<_, wire::Edge>(edges))?;
    } else {
        for edge in edges {
            render::call_edge(out, edge, callers)?;
        }
    }
    out.flush()?;
    if edges.is_empty() {
        let what = if callers { "callers" } else { "callees" };
        let unread = if callers {
            index.unread_mentions(&targets)?
        } else {
            Vec::new()
        };
        if unread.is_empty() {
            render::message(&format!(
                "{} is defined, but the index has no {what} for it",
                args.target
            ))?;
        } else {
            render::unread(&args.target, what, &unread)?;
        }
    }
    if page.truncated() {
        render::message(&format!(
            "{} edges shown: the graph was cut at its limit before depth {}; a smaller --depth gives a whole answer",
            edges.len(),
            args.depth
        ))?;
    }
    say_freshness(index, FreshnessScope::Symbols)?;
    Ok(Found::unless_empty(edges))
}

fn search(index: &Index, args: &SearchArgs, out: &mut Out) -> Result<Found> {
    let page = index.search_page(&SearchQuery {
        query: args.query.clone(),
        regex: args.regex,
        path_glob: args.path.clone(),
        lang: args.lang,
        limit: args.limit.max(1),
    })?;
    if out.json {
        out.json_value(&page.hits)?;
    } else {
        for hit in &page.hits {
            render::search_hit(out, hit)?;
        }
    }
    out.flush()?;
    say_cut(&page, "--limit N for more")?;
    say_freshness(index, FreshnessScope::Text)?;
    Ok(Found::unless_empty(&page.hits))
}

fn bench(cwd: &Path, args: &BenchArgs, out: &mut Out) -> Result<Found> {
    let start = args
        .path
        .as_ref()
        .map_or(cwd.to_path_buf(), |p| cwd.join(p));
    let options = mcursor_bench::BenchOptions {
        queries: args.queries.max(1),
        runs: args.runs.max(1),
        seed: args.seed,
        truth: args.truth.as_ref().map(|t| cwd.join(t)),
        mcursor: std::env::current_exe().context("cannot locate the mcursor binary to time it")?,
        ..mcursor_bench::BenchOptions::default()
    };
    let bar = render::progress_bar("lookups");
    bar.set_message("timing lookups");
    let report = mcursor_bench::run_bench(&start, &options, &|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let report = report?;
    if let Some(plot) = &args.plot {
        mcursor_bench::plot_svg(&report, &cwd.join(plot))?;
    }
    if let Some(path) = &args.report {
        let path = cwd.join(path);
        let json = serde_json::to_vec_pretty(&report)?;
        std::fs::write(&path, json)
            .with_context(|| format!("cannot write the report to {}", path.display()))?;
    }
    if out.json {
        out.json_value(&report)?;
    } else {
        out.text(&mcursor_bench::render_table(&report))?;
        if let Some(plot) = &args.plot {
            render::message(&format!("plot written to {}", plot.display()))?;
        }
    }
    Ok(Found::Some)
}

fn status(index: &Index, args: &StatusArgs, out: &mut Out) -> Result<Found> {
    if args.syntax_errors {
        let errors = index.syntax_errors(usize::MAX);
        if out.json {
            out.json_value(&errors)?;
        } else {
            render::syntax_errors(out, &errors, false)?;
            out.flush()?;
            render::message(&format!(
                "{} files with syntax errors (indexed from their valid parts)",
                errors.total
            ))?;
        }
        return Ok(Found::unless_empty(&errors.files));
    }
    let status = index.status();
    let errors = index.syntax_errors(mcursor_index::STATUS_SYNTAX_ERRORS);
    if out.json {
        let mut value = serde_json::to_value(&status)?;
        if let Some(fields) = value.as_object_mut() {
            fields.insert("syntax_errors".into(), serde_json::to_value(&errors)?);
        }
        out.json_value(&value)?;
    } else {
        render::status(out, &status)?;
        render::syntax_errors(out, &errors, true)?;
    }
    Ok(Found::Some)
}
