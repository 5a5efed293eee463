//! A scenario written in code as TOML text, parsed and built by talus-io as `talus run`
//! would, then stepped through its two stages by hand: a gate holds 100 discs until the
//! second stage takes it away. Between the stages and at the end the program reads the
//! particle arrays (one per axis) and counts the grains below the gate.
//!
//! `cargo run --release --example scenario_in_code`
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = r#"
title = "a gate in code"
gravity = [0.0, -9.81]
[domain]
min = [-0.001, -0.001]
max = [0.031, 0.061]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e5
restitution = 0.3
friction = 0.5
[[wall]]
kind = "box"
min = [0.0, 0.0]
max = [0.03, 0.06]
[[wall]]
name = "gate"
kind = "line"
point = [0.0, 0.02]
normal = [0.0, 1.0]
[[particles]]
material = "grain"
count = 100
radius = { kind = "uniform", mean = 1.0e-3, width = 0.2 }
packing = "lattice"
region = { min = [0.0, 0.021], max = [0.03, 0.06] }
[[stage]]
name = "rest on the gate"
steps = 20000
[[stage]]
name = "open"
steps = 20000
remove = ["gate"]
"#;
    let path = Path::new("<in code>");
    let scenario = talus::io::scenario::parse_scenario(text, path)?;
    let built = talus::io::build::build(&scenario, path)?;
    println!("{} ({})", built.title, built.dt_note);
    let mut sim = built.sim;
    let below = |sim: &talus::engine::Simulation| sim.particles.pos[1].iter().filter(|&&y| y < 0.02).count();
    for stage in &built.stages {
        // What `talus run` does as a stage begins, then its steps.
        stage.begin(&mut sim)?;
        println!(
            "stage `{}` begins at step {}: {}",
            stage.name,
            sim.step,
            stage.describe()
        );
        sim.run(stage.steps)?;
        println!(
            "  after it, {} of {} grains are below the gate's height",
            below(&sim),
            sim.len()
        );
    }
    Ok(())
}
