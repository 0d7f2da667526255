//! The `mcursor` binary: argument parsing, terminal rendering, `--json` output and exit
//! codes over the index crate's query API, the agent (`ask`), the benchmark and the MCP
//! server.
//!
//! Exit codes: 0 success with results, 1 success without results (as grep), 2 error.
//! `--json` prints machine-readable output on stdout and nothing else there; messages go
//! to stderr. Colors only on a terminal, never with `NO_COLOR`.

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
    BuildOptions, FindQuery, Index, IndexError, LockWait, Progress, RefTarget, RefsQuery,
    SearchQuery, SymbolHit, WatchEvent, WatchOptions, build_index,
};
use mcursor_syntax::{Lang, RefKind, SymbolKind};

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
    /// Print JSON on stdout instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// When to color the output.
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorWhen {
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
    /// Who calls a function (the call graph upwards).
    Callers(CallArgs),
    /// What a function calls (the call graph downwards).
    Callees(CallArgs),
    /// Full-text code search: words match whole identifiers and their sub-words.
    Search(SearchArgs),
    /// What the index holds and whether files changed since it was built.
    Status,
    /// Serve the index to other agents over the Model Context Protocol (stdio).
    Mcp,
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

#[derive(Subcommand)]
enum SandboxCommand {
    /// Report what the kernel supports, try every protection on a scratch workspace
    /// (writes outside, .git/config, credentials, the agent's environment, sockets,
    /// processes left behind), and list what this workspace protects and hides.
    /// Exit 0 when commands run confined.
    Doctor,
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
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    parse_timeout_ms: u64,
}

impl BuildFlags {
    fn options(&self, full: bool, lock_wait: LockWait) -> BuildOptions {
        let defaults = BuildOptions::default();
        BuildOptions {
            max_file_size: self.max_file_size,
            threads: self.threads.unwrap_or(defaults.threads),
            parse_timeout: Duration::from_millis(self.parse_timeout_ms),
            lock_wait,
            full,
            changed_paths: None,
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
    /// Rescan interval when the OS cannot watch the tree (watch limit reached).
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    poll_ms: u64,
    #[command(flatten)]
    build: BuildFlags,
}

#[derive(Args)]
struct FindArgs {
    name: String,
    /// Only this kind (function, method, struct, class, enum, enum_variant, interface,
    /// trait, type_alias, constant, static, variable, field, module, macro).
    #[arg(long, value_parser = parse_symbol_kind)]
    kind: Option<SymbolKind>,
    /// Only this language.
    #[arg(long, value_parser = lang_parser())]
    lang: Option<Lang>,
    /// Names starting with NAME.
    #[arg(long, conflicts_with = "fuzzy")]
    prefix: bool,
    /// Names similar to NAME (labeled as fuzzy matches).
    #[arg(long)]
    fuzzy: bool,
    #[arg(long, default_value_t = 100)]
    limit: usize,
}

#[derive(Args)]
struct RefsArgs {
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
    #[arg(long, default_value_t = 1000)]
    limit: usize,
}

#[derive(Args)]
struct CallArgs {
    target: String,
    /// How many levels to follow.
    #[arg(long, default_value_t = 1)]
    depth: usize,
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
}

#[derive(Args)]
struct SearchArgs {
    query: String,
    /// QUERY is a regular expression, matched line by line.
    #[arg(long, short = 'e')]
    regex: bool,
    /// Only paths matching this glob (e.g. 'src/**/*.rs').
    #[arg(long, value_name = "GLOB")]
    path: Option<String>,
    /// Only files of this language.
    #[arg(long, value_parser = lang_parser())]
    lang: Option<Lang>,
    #[arg(long, default_value_t = 50)]
    limit: usize,
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

/// `--lang`: the languages of the language table, with their aliases (`rs`, `ts`); clap
/// lists them in `--help` and in the error for an unknown one.
fn lang_parser() -> impl clap::builder::TypedValueParser<Value = Lang> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        mcursor_syntax::LANGUAGES
            .iter()
            .map(|spec| PossibleValue::new(spec.name).aliases(spec.aliases.iter().copied())),
    )
    .try_map(|word: String| Lang::parse(&word).ok_or_else(|| format!("unknown language {word}")))
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
    match cli.color {
        ColorWhen::Auto => {}
        ColorWhen::Always => anstream::ColorChoice::Always.write_global(),
        ColorWhen::Never => anstream::ColorChoice::Never.write_global(),
    }
    let mut out = Out::new(cli.json);
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
        Command::Refs(args) => refs(&open(&cwd)?, args, out),
        Command::Callers(args) => calls(&open(&cwd)?, args, true, out),
        Command::Callees(args) => calls(&open(&cwd)?, args, false, out),
        Command::Search(args) => search(&open(&cwd)?, args, out),
        Command::Status => status(&open(&cwd)?, out),
        Command::Bench(args) => bench(&cwd, args, out),
        Command::Ask(args) => Ok(if ask::run(&cwd, args, out.json)? {
            Found::Some
        } else {
            Found::None
        }),
        Command::Mcp => {
            mcursor_mcp::serve_stdio(&cwd)?;
            Ok(Found::Some)
        }
        Command::Sandbox(SandboxCommand::Doctor) => Ok(if sandbox::doctor(&cwd, out)? {
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
        Command::Debug(DebugCommand::Facts { file }) => {
            let path = cwd.join(file);
            let lang = Lang::from_path(&path).with_context(|| {
                format!(
                    "{} is not in a language mcursor parses ({})",
                    path.display(),
                    Lang::names().collect::<Vec<_>>().join(", ")
                )
            })?;
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
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
    let summary = build_index(&root, &options, &report);
    bar.finish_and_clear();
    let summary = summary?;
    if out.json {
        out.json_value(&summary)?;
    } else {
        render::index_summary(out, &summary)?;
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
    };
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

fn not_found(index: &Index, name: &str, out: &mut Out) -> Result<Found> {
    if out.json {
        out.json_value(&Vec::<SymbolHit>::new())?;
    }
    let suggestions = index.similar_names(name, 5);
    render::no_symbol(name, &suggestions)?;
    Ok(Found::None)
}

fn find(index: &Index, args: &FindArgs, out: &mut Out) -> Result<Found> {
    let hits = index.find(&FindQuery {
        name: args.name.clone(),
        kind: args.kind,
        lang: args.lang,
        prefix: args.prefix,
        fuzzy: args.fuzzy,
        limit: Some(args.limit),
    });
    if hits.is_empty() {
        return not_found(index, &args.name, out);
    }
    if out.json {
        out.json_value(&hits)?;
    } else {
        if args.fuzzy {
            out.note(&format!("fuzzy matches for `{}` (not exact):", args.name))?;
        }
        for hit in &hits {
            render::symbol(out, hit)?;
        }
    }
    Ok(Found::Some)
}

fn targets(index: &Index, target: &str, out: &mut Out) -> Result<Option<Vec<SymbolHit>>> {
    let parsed = RefTarget::parse(target);
    let hits = index.targets(&parsed)?;
    if hits.is_empty() {
        not_found(index, target, out)?;
        return Ok(None);
    }
    Ok(Some(hits))
}

fn refs(index: &Index, args: &RefsArgs, out: &mut Out) -> Result<Found> {
    let Some(targets) = targets(index, &args.target, out)? else {
        return Ok(Found::None);
    };
    let hits = index.references(
        &targets,
        &RefsQuery {
            kind: args.kind,
            resolved_only: args.resolved_only,
            direct_only: args.direct,
            limit: Some(args.limit),
        },
    );
    if out.json {
        out.json_value(&hits)?;
    } else {
        let several_targets = targets.len() > 1;
        for hit in &hits {
            render::reference(out, hit, several_targets)?;
        }
        let implementations = index.implementations(&targets);
        if !implementations.is_empty() {
            render::message(&format!(
                "implemented by: {}",
                implementations
                    .iter()
                    .map(|i| format!(
                        "{} ({}:{})",
                        i.qualified_name,
                        mcursor_index::answers::escape_controls(&i.path),
                        i.line
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))?;
        }
        if hits.is_empty() {
            render::message(&format!(
                "{} is defined ({}), but nothing in the index refers to it",
                args.target,
                targets
                    .iter()
                    .map(|t| format!(
                        "{}:{}",
                        mcursor_index::answers::escape_controls(&t.path),
                        t.line
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))?;
        }
    }
    Ok(Found::unless_empty(&hits))
}

fn calls(index: &Index, args: &CallArgs, callers: bool, out: &mut Out) -> Result<Found> {
    let Some(targets) = targets(index, &args.target, out)? else {
        return Ok(Found::None);
    };
    let depth = args.depth.max(1);
    let edges = if callers {
        index.callers(&targets, depth)
    } else {
        index.callees(&targets, depth)
    };
    if out.json {
        out.json_value(&edges)?;
    } else {
        for edge in &edges {
            render::call_edge(out, edge, callers)?;
        }
        if edges.is_empty() {
            render::message(&format!(
                "{} is defined, but the index has no {} for it",
                args.target,
                if callers { "callers" } else { "callees" }
            ))?;
        }
    }
    Ok(Found::unless_empty(&edges))
}

fn search(index: &Index, args: &SearchArgs, out: &mut Out) -> Result<Found> {
    let hits = index.search(&SearchQuery {
        query: args.query.clone(),
        regex: args.regex,
        path_glob: args.path.clone(),
        lang: args.lang,
        limit: args.limit.max(1),
    })?;
    if out.json {
        out.json_value(&hits)?;
    } else {
        for hit in &hits {
            render::search_hit(out, hit)?;
        }
    }
    Ok(Found::unless_empty(&hits))
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

fn status(index: &Index, out: &mut Out) -> Result<Found> {
    let status = index.status();
    if out.json {
        out.json_value(&status)?;
    } else {
        render::status(out, &status)?;
    }
    Ok(Found::Some)
}
