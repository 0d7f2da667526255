//! mcursor-bench owns `mcursor bench`: it samples names from an index (or from a
//! synthetic corpus's ground truth), asks "where is NAME defined?" and "where is NAME
//! used?" of mcursor and of `rg -w`, `git grep -w` and `grep -rw`, alternating the tools
//! so machine drift falls on all of them alike, and reports time (median, p99, ratio to
//! mcursor), the lines and bytes a reader of each answer gets, and precision and recall.
//!
//! Boundaries: synchronous; runs the grep tools and the `mcursor` binary as child
//! processes; knows nothing about terminals beyond formatting a plain table
//! ([`render_table`]); draws the SVG plot with `plotters` ([`plot_svg`]).
//!
//! Precision and recall are computed at `path:line` granularity, the unit grep answers
//! in. Against ground truth (`--truth`) both questions are scored for every tool; without
//! it, only grep's precision for the definitions question is scored, against the index's
//! own definitions (mcursor is not scored against itself).

mod plot;
mod report;
mod sample;
mod tools;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcursor_index::{Index, IndexError};
use mcursor_synth::{NameClass, SynthError, Truth};
use serde::Serialize;

pub use plot::plot_svg;
pub use report::render_table;
pub use sample::{Query, per_class};
pub use tools::{Programs, Question, Tool};

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Truth(#[from] SynthError),
    #[error(
        "the ground truth does not describe this index: {0} (index the generated corpus's directory itself)"
    )]
    TruthMismatch(String),
    #[error("the index holds no names to look up; index a repository with source files first")]
    NothingToSample,
    #[error("cannot run {tool}: {source}")]
    Spawn {
        tool: String,
        source: std::io::Error,
    },
    #[error("cannot draw the plot: {0}")]
    Plot(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

pub type Result<T, E = BenchError> = std::result::Result<T, E>;

#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Names to look up in all (split evenly across rare, medium and common).
    pub queries: usize,
    /// Rounds over all names; every round times every tool once per name.
    pub runs: usize,
    /// In-process lookups per name and round (they take microseconds); their median is
    /// the name's sample.
    pub in_process_repeats: usize,
    pub seed: u64,
    /// Ground truth from `mcursor-synth`, for precision and recall of both questions.
    pub truth: Option<PathBuf>,
    /// The `mcursor` binary timed as a process.
    pub mcursor: PathBuf,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            queries: 60,
            runs: 3,
            in_process_repeats: 20,
            seed: 1,
            truth: None,
            mcursor: PathBuf::from("mcursor"),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Corpus {
    pub root: PathBuf,
    pub files: u32,
    pub source_bytes: u64,
    pub symbols: u32,
    pub references: u32,
    /// Whether the working tree still matches the index (a stale index answers from an
    /// older tree than grep reads).
    pub index_current: bool,
}

/// Precision and recall pooled over a set of queries; `None` where nothing was returned
/// (precision) or nothing was expected (recall).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Score {
    pub precision: Option<f64>,
    pub recall: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClassFigures {
    pub queries: usize,
    pub median_us: f64,
    pub p99_us: f64,
    pub lines_per_query: f64,
    pub bytes_per_query: f64,
    #[serde(flatten)]
    pub score: Score,
}

/// One tool's figures for one question.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub tool: Tool,
    pub label: &'static str,
    pub samples: usize,
    pub median_us: f64,
    pub p99_us: f64,
    /// This tool's median ÷ the median of mcursor run as a process, same question.
    pub times_mcursor: Option<f64>,
    /// Mean per name of what a reader gets (0 for in-process lookups).
    pub lines_per_query: f64,
    pub bytes_per_query: f64,
    /// Mean of the three classes' pooled scores, so the many hits of common names do not
    /// drown the rare ones; per class in `by_class`.
    #[serde(flatten)]
    pub score: Score,
    /// What `score` is measured against: "truth", "index" or "" (not scored).
    pub scored_against: &'static str,
    pub by_class: BTreeMap<&'static str, ClassFigures>,
}

#[derive(Clone, Debug, Serialize)]
pub struct QuestionReport {
    pub question: Question,
    pub rows: Vec<Row>,
}

/// Per name: how many sites each answer held (first round).
#[derive(Clone, Debug, Serialize)]
pub struct QueryRecord {
    pub name: String,
    pub class: NameClass,
    pub definitions: usize,
    pub references: usize,
    pub grep_lines: BTreeMap<&'static str, usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub corpus: Corpus,
    pub cpus: usize,
    pub queries: usize,
    pub runs: usize,
    pub seed: u64,
    pub truth: Option<PathBuf>,
    pub skipped: Vec<String>,
    pub notes: Vec<String>,
    pub questions: Vec<QuestionReport>,
    pub names: Vec<QueryRecord>,
}

/// Time one name's in-process lookups may take before they stop repeating.
const IN_PROCESS_BUDGET: Duration = Duration::from_millis(200);

/// Progress of a run: `done` of `total` timed lookups.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// Everything measured for one (tool, question): time samples per class and, per query,
/// the answer's counts and score.
#[derive(Default)]
struct Tally {
    times: BTreeMap<NameClass, Vec<Duration>>,
    /// Per class: output lines, output bytes, answers counted.
    read: BTreeMap<NameClass, (usize, usize, usize)>,
    /// Per class: true positives, returned, expected.
    counts: BTreeMap<NameClass, (usize, usize, usize)>,
}

impl Tally {
    fn time(&mut self, class: NameClass, elapsed: Duration) {
        self.times.entry(class).or_default().push(elapsed);
    }

    fn score(&mut self, class: NameClass, returned: &HashSet<String>, expected: &HashSet<String>) {
        let hits = returned.intersection(expected).count();
        let entry = self.counts.entry(class).or_default();
        entry.0 += hits;
        entry.1 += returned.len();
        entry.2 += expected.len();
    }
}

fn percentile(sorted: &[Duration], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    // Nearest rank: the smallest sample with at least `fraction` of them at or below it.
    let rank = ((fraction * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1].as_secs_f64() * 1e6
}

fn median_and_p99(samples: &[Duration]) -> (f64, f64) {
    let mut sorted = samples.to_vec();
    sorted.sort();
    (percentile(&sorted, 0.5), percentile(&sorted, 0.99))
}

fn pooled(counts: (usize, usize, usize)) -> Score {
    let (hits, returned, expected) = counts;
    Score {
        precision: (returned > 0).then(|| hits as f64 / returned as f64),
        recall: (expected > 0).then(|| hits as f64 / expected as f64),
    }
}

fn mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let values: Vec<f64> = values.flatten().collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn load_truth(path: &Path, index: &Index) -> Result<Truth> {
    let truth = Truth::load(path)?;
    let store = index.store();
    let listed: Vec<&str> = truth
        .names
        .values()
        .flat_map(|n| n.definitions.iter())
        .filter_map(|site| site.rsplit_once(':').map(|(path, _)| path))
        .take(50)
        .collect();
    if listed.is_empty() {
        return Err(BenchError::TruthMismatch("it lists no definitions".into()));
    }
    if let Some(missing) = listed.iter().find(|p| store.file_id(p).is_none()) {
        return Err(BenchError::TruthMismatch(format!(
            "{missing} is not in the index of {}",
            index.root().display()
        )));
    }
    Ok(truth)
}

fn as_set(sites: &[String]) -> HashSet<String> {
    sites.iter().cloned().collect()
}

/// What one name's answers are scored against (first round only).
struct Expectations {
    truth_definitions: Option<HashSet<String>>,
    truth_references: Option<HashSet<String>>,
    /// The index's own definitions: grep's definition hits are scored against them when
    /// there is no truth.
    index_definitions: HashSet<String>,
}

impl Expectations {
    fn for_grep(&self, question: Question) -> Option<&HashSet<String>> {
        match question {
            Question::Definitions => self
                .truth_definitions
                .as_ref()
                .or(Some(&self.index_definitions)),
            Question::References => self.truth_references.as_ref(),
        }
    }

    fn for_index(&self, question: Question) -> Option<&HashSet<String>> {
        match question {
            Question::Definitions => self.truth_definitions.as_ref(),
            Question::References => self.truth_references.as_ref(),
        }
    }
}

/// The measurements of one run, filled in name by name.
struct Session<'a> {
    index: &'a Index,
    programs: &'a Programs,
    repeats: usize,
    tallies: BTreeMap<(Tool, Question), Tally>,
    records: Vec<QueryRecord>,
    tool_errors: BTreeMap<Tool, String>,
}

impl Session<'_> {
    /// Both questions through the library. Slow lookups (every use of `get` in 100k
    /// files) are repeated less: at most `repeats` times or about 200 ms, at least once.
    /// The median of the repeats is the name's one sample, so every name weighs the same,
    /// as in the process tools' figures.
    fn in_process(&mut self, q: usize, query: &Query, scoring: Option<&Expectations>) {
        for question in Question::ALL {
            let mut times = Vec::with_capacity(self.repeats);
            let mut spent = Duration::ZERO;
            let mut answer = tools::Answer::default();
            while times.len() < self.repeats && (times.is_empty() || spent <= IN_PROCESS_BUDGET) {
                answer = match question {
                    Question::Definitions => tools::find_in_process(self.index, &query.name),
                    Question::References => tools::refs_in_process(self.index, &query.name),
                };
                spent += answer.elapsed;
                times.push(answer.elapsed);
            }
            times.sort();
            let tally = self
                .tallies
                .entry((Tool::McursorInProcess, question))
                .or_default();
            tally.time(query.class, times[times.len() / 2]);
            let Some(scoring) = scoring else {
                continue;
            };
            if let Some(expected) = scoring.for_index(question) {
                tally.score(query.class, &answer.sites, expected);
            }
            let record = &mut self.records[q];
            match question {
                Question::Definitions => record.definitions = answer.sites.len(),
                Question::References => record.references = answer.sites.len(),
            }
        }
    }

    /// One process run per question (one for both, for the grep tools).
    fn process(
        &mut self,
        tool: Tool,
        q: usize,
        query: &Query,
        root: &Path,
        scoring: Option<&Expectations>,
    ) -> Result<()> {
        let runs: &[Question] = if tool.is_grep() {
            &[Question::Definitions]
        } else {
            &Question::ALL
        };
        for &question in runs {
            let (answer, clean) =
                tools::run_process(self.programs, tool, question, &query.name, root).map_err(
                    |source| BenchError::Spawn {
                        tool: tool.label(question).to_owned(),
                        source,
                    },
                )?;
            if !clean {
                self.tool_errors.entry(tool).or_insert_with(|| {
                    format!(
                        "{} reported errors (for `{}`, among others); its answers were counted as printed",
                        tool.label(question),
                        query.name
                    )
                });
            }
            let answers: &[Question] = if tool.is_grep() {
                &Question::ALL
            } else {
                std::slice::from_ref(&question)
            };
            for &answered in answers {
                let tally = self.tallies.entry((tool, answered)).or_default();
                tally.time(query.class, answer.elapsed);
                let Some(scoring) = scoring else {
                    continue;
                };
                let read = tally.read.entry(query.class).or_default();
                read.0 += answer.lines;
                read.1 += answer.bytes;
                read.2 += 1;
                // mcursor as a process prints the in-process answer, scored there.
                if let Some(expected) = scoring.for_grep(answered).filter(|_| tool.is_grep()) {
                    tally.score(query.class, &answer.sites, expected);
                }
            }
            if tool.is_grep() && scoring.is_some() {
                self.records[q]
                    .grep_lines
                    .insert(tool.label(question), answer.lines);
            }
        }
        Ok(())
    }
}

fn per_query(total: usize, answered: usize) -> f64 {
    if answered == 0 {
        0.0
    } else {
        total as f64 / answered as f64
    }
}

/// One row of the report from a tool's tally.
fn row(
    tool: Tool,
    question: Question,
    tally: &Tally,
    against: &'static str,
    queries: &[Query],
    baseline: Option<f64>,
) -> Row {
    let all: Vec<Duration> = tally.times.values().flatten().copied().collect();
    let (median_us, p99_us) = median_and_p99(&all);
    let mut by_class = BTreeMap::new();
    for (class, times) in &tally.times {
        let (median_us, p99_us) = median_and_p99(times);
        let (lines, bytes, answered) = tally.read.get(class).copied().unwrap_or_default();
        let score = if against.is_empty() {
            Score::default()
        } else {
            pooled(tally.counts.get(class).copied().unwrap_or_default())
        };
        by_class.insert(
            class.as_str(),
            ClassFigures {
                queries: queries.iter().filter(|q| q.class == *class).count(),
                median_us,
                p99_us,
                lines_per_query: per_query(lines, answered),
                bytes_per_query: per_query(bytes, answered),
                score,
            },
        );
    }
    let score = Score {
        precision: mean(by_class.values().map(|c| c.score.precision)),
        recall: mean(by_class.values().map(|c| c.score.recall)),
    };
    let (lines, bytes, answered) = tally
        .read
        .values()
        .fold((0, 0, 0), |sum, r| (sum.0 + r.0, sum.1 + r.1, sum.2 + r.2));
    let compared = !matches!(tool, Tool::Mcursor | Tool::McursorInProcess);
    Row {
        tool,
        label: tool.label(question),
        samples: all.len(),
        median_us,
        p99_us,
        times_mcursor: baseline
            .filter(|base| *base > 0.0 && compared)
            .map(|base| median_us / base),
        lines_per_query: per_query(lines, answered),
        bytes_per_query: per_query(bytes, answered),
        score,
        scored_against: against,
        by_class,
    }
}

/// Runs the benchmark on the index at `root` (its nearest indexed ancestor).
pub fn run_bench(
    root: &Path,
    options: &BenchOptions,
    progress: Progress<'_>,
) -> Result<BenchReport> {
    let index = Index::open(root)?;
    let root = index.root().to_path_buf();
    let status = index.status();
    let corpus = Corpus {
        root: root.clone(),
        files: status.files,
        source_bytes: status.source_bytes,
        symbols: status.symbols,
        references: status.references,
        index_current: status.current,
    };
    let truth = match &options.truth {
        Some(path) => Some(load_truth(path, &index)?),
        None => None,
    };
    let per_class = per_class(options.queries);
    let queries = match &truth {
        Some(truth) => sample::from_truth(truth, per_class, options.seed),
        None => sample::from_index(&index, per_class, options.seed),
    };
    if queries.is_empty() {
        return Err(BenchError::NothingToSample);
    }
    let programs = Programs::detect(options.mcursor.clone(), &root);
    let mut notes = Vec::new();
    let too_large = index
        .store()
        .meta()
        .skipped
        .get("too_large")
        .copied()
        .unwrap_or(0);
    if too_large > 0 {
        notes.push(format!(
            "the index skipped {too_large} files over its size limit that grep still reads; \
             `mcursor index --max-file-size BYTES` includes them"
        ));
    }
    if !corpus.index_current {
        notes.push(
            "the working tree changed since the index was built; run `mcursor index` first for comparable answers"
                .to_owned(),
        );
    }

    let tools = &programs.available;
    let runs = options.runs.max(1);
    let total = runs * queries.len() * tools.len();
    let mut done = 0;
    let mut session = Session {
        index: &index,
        programs: &programs,
        repeats: options.in_process_repeats.max(1),
        tallies: BTreeMap::new(),
        records: queries
            .iter()
            .map(|q| QueryRecord {
                name: q.name.clone(),
                class: q.class,
                definitions: 0,
                references: 0,
                grep_lines: BTreeMap::new(),
            })
            .collect(),
        tool_errors: BTreeMap::new(),
    };
    for round in 0..runs {
        for (q, query) in queries.iter().enumerate() {
            // Answers are the same every round; they are counted and scored in the first.
            let scoring = (round == 0).then(|| {
                let planted = truth.as_ref().map(|t| t.names.get(&query.name));
                let sites = |pick: fn(&mcursor_synth::NameTruth) -> &Vec<String>| {
                    planted.map(|n| n.map(|n| as_set(pick(n))).unwrap_or_default())
                };
                Expectations {
                    truth_definitions: sites(|n| &n.definitions),
                    truth_references: sites(|n| &n.references),
                    index_definitions: tools::find_in_process(&index, &query.name).sites,
                }
            });
            // Rotate the starting tool per name and round: no tool always runs first
            // (cold caches) or right after the heaviest one.
            for offset in 0..tools.len() {
                let tool = tools[(q + round + offset) % tools.len()];
                done += 1;
                progress(done, total);
                if tool == Tool::McursorInProcess {
                    session.in_process(q, query, scoring.as_ref());
                } else {
                    session.process(tool, q, query, &root, scoring.as_ref())?;
                }
            }
        }
    }
    notes.extend(std::mem::take(&mut session.tool_errors).into_values());

    let scored_against = |tool: Tool, question: Question| match question {
        _ if tool == Tool::Mcursor => "",
        _ if truth.is_some() => "truth",
        Question::Definitions if tool.is_grep() => "index",
        _ => "",
    };
    let questions = Question::ALL
        .into_iter()
        .map(|question| {
            let baseline = session.tallies.get(&(Tool::Mcursor, question)).map(|t| {
                median_and_p99(&t.times.values().flatten().copied().collect::<Vec<_>>()).0
            });
            let rows = tools
                .iter()
                .filter_map(|&tool| {
                    let tally = session.tallies.get(&(tool, question))?;
                    Some(row(
                        tool,
                        question,
                        tally,
                        scored_against(tool, question),
                        &queries,
                        baseline,
                    ))
                })
                .collect();
            QuestionReport { question, rows }
        })
        .collect();

    Ok(BenchReport {
        corpus,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        queries: queries.len(),
        runs,
        seed: options.seed,
        truth: options.truth.clone(),
        skipped: programs.skipped.clone(),
        notes,
        questions,
        names: session.records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let samples: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        let (median, p99) = median_and_p99(&samples);
        assert_eq!(median, 50.0);
        assert_eq!(p99, 99.0);
        let (median, p99) = median_and_p99(&[Duration::from_micros(7)]);
        assert_eq!((median, p99), (7.0, 7.0));
        assert_eq!(median_and_p99(&[]), (0.0, 0.0));
    }

    #[test]
    fn pooled_scores_leave_undefined_cases_empty() {
        let score = pooled((3, 4, 6));
        assert_eq!(score.precision, Some(0.75));
        assert_eq!(score.recall, Some(0.5));
        let nothing = pooled((0, 0, 0));
        assert!(nothing.precision.is_none() && nothing.recall.is_none());
        assert_eq!(mean([Some(1.0), None, Some(0.5)].into_iter()), Some(0.75));
    }
}
