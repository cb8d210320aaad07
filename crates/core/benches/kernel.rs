//! The backtracking kernel on one thread, N = 10..=13, every method:
//! `cargo bench -p nqueens-core --bench kernel`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nqueens_core::{Counts, Method, Problem};

fn count(problem: &Problem) -> Counts {
    let tasks = problem.tasks(0).expect("depth 0 fits every board");
    tasks.iter().fold(Counts::default(), |sum, task| {
        sum.merge(&problem.solve(task, false).expect("tasks of this problem")).expect("no overflow")
    })
}

fn kernel(c: &mut Criterion) {
    for method in Method::ALL {
        let mut group = c.benchmark_group(method.name());
        for n in 10..=13 {
            let problem = Problem::new(n, method).expect("a valid board size");
            group.bench_with_input(BenchmarkId::from_parameter(n), &problem, |b, problem| {
                b.iter(|| count(black_box(problem)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, kernel);
criterion_main!(benches);
