//! `mcursor-synth`: writes a seeded synthetic corpus and its ground truth.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use mcursor_synth::{NameClass, SynthConfig, SynthLang, generate};

/// Write a synthetic Rust or TypeScript repository with planted ground truth.
#[derive(Parser)]
#[command(name = "mcursor-synth", version)]
struct Args {
    /// Language of the generated files.
    #[arg(long, value_enum)]
    lang: SynthLang,
    /// Number of source files.
    #[arg(long)]
    files: usize,
    /// Seed; the same seed and size always give the same tree.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output directory (created; must be empty or absent).
    #[arg(long)]
    out: PathBuf,
    /// Where to write the ground truth (default: OUT.truth.json, beside the tree, so
    /// that searching the tree never finds it).
    #[arg(long)]
    truth: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let config = SynthConfig {
        lang: args.lang,
        files: args.files,
        seed: args.seed,
    };
    let truth_path = args.truth.clone().unwrap_or_else(|| {
        let mut name = args.out.as_os_str().to_owned();
        name.push(".truth.json");
        PathBuf::from(name)
    });
    let result = generate(&config, &args.out).and_then(|truth| {
        truth.save(&truth_path)?;
        Ok(truth)
    });
    match result {
        Ok(truth) => {
            let count = |class| truth.names.values().filter(|n| n.class == class).count();
            println!(
                "wrote {} {} files to {} and the truth to {} ({} rare, {} medium, {} common names)",
                args.files,
                args.lang.as_str(),
                args.out.display(),
                truth_path.display(),
                count(NameClass::Rare),
                count(NameClass::Medium),
                count(NameClass::Common),
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
