//! The backtracking kernels on one thread, N = 10..=13, every method on every kernel this
//! processor has: `cargo bench -p nqueens-core --bench kernel`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nqueens_core::{Counts, Kernel, Method, Problem};

fn count(problem: &Problem) -> Counts {
    let tasks = problem.tasks(0).expect("depth 0 fits every board");
    tasks.iter().fold(Counts::default(), |sum, task| {
        sum.merge(&problem.solve(task, false).expect("tasks of this problem")).expect("no overflow")
    })
}

fn kernel(c: &mut Criterion) {
    for method in Method::ALL {
        // The join has one kernel of its own.
        let kernels: &[Kernel] = if method == Method::Join {
            &[Kernel::Auto]
        } else {
            &[Kernel::Avx512, Kernel::Avx2, Kernel::Scalar]
        };
        for &kernel in kernels {
            let name = match method {
                Method::Join => method.name().to_owned(),
                _ => format!("{method}/{kernel}"),
            };
            let mut group = c.benchmark_group(name);
            for n in 10..=13 {
                let problem = Problem::new(n, method).expect("a valid board size");
                // A kernel this processor lacks is left out.
                let Ok(problem) = problem.with_kernel(kernel) else { continue };
                group.bench_with_input(BenchmarkId::from_parameter(n), &problem, |b, problem| {
                    b.iter(|| count(black_box(problem)))
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, kernel);
criterion_main!(benches);
