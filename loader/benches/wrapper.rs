//! No hooks: `HookToolWrapper::execute` with no hook listening, against calling the tool
//! directly. The tool returns a constant output. Both run on a current-thread tokio
//! runtime; the timed loop runs inside one `block_on`, so that the runtime's own entry
//! cost is not part of either side.
//!
//! A counting global allocator checks the wrapper's promise of no allocation: it counts
//! the allocations of each path, per call.

mod common;

use std::{
    alloc::{GlobalAlloc, Layout, System},
    hint::black_box,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use agent_hooks::{abi::prelude::*, HookRunner, HookToolWrapper, Tool, ToolError, ToolOutput};
use criterion::Criterion;
use tokio::runtime::Runtime;

/// The system allocator, counting allocations (and reallocations, which may allocate).
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; counting has no
// effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller upholds `alloc`'s contract, which we pass on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above; `ptr` came from this allocator, that is from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A tool that returns the same output every time, without allocating.
struct Constant;

/// Its output: empty content and null details, which own no heap memory.
const OUTPUT: ToolOutput = ToolOutput {
    content: Vec::new(),
    details: Value::Null,
};

impl Tool for Constant {
    fn name(&self) -> &str {
        "constant"
    }

    async fn execute(&self, _id: &str, _input: Value) -> Result<ToolOutput, ToolError> {
        Ok(OUTPUT)
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let runner = Arc::new(HookRunner::new(Vec::new(), dir.path()));
    let wrapper = HookToolWrapper::new(Constant, runner);

    let mut c = common::criterion();
    bench(&mut c, &rt, &wrapper);
    c.final_summary();
    report(&rt, &wrapper);
}

/// One call of the tool itself. The input is `Null`, which owns no heap memory, so that
/// any allocation counted is the path's own.
async fn direct(tool: &Constant) {
    let output = tool.execute("call-1", Value::Null).await;
    let _ = black_box(output);
}

/// One call through the wrapper, with no hook listening.
async fn wrapped(wrapper: &HookToolWrapper<Constant>) {
    let output = wrapper.execute("call-1", Value::Null).await;
    let _ = black_box(output);
}

fn bench(c: &mut Criterion, rt: &Runtime, wrapper: &HookToolWrapper<Constant>) {
    let mut group = c.benchmark_group("wrapper");
    group
        .sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("direct", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    direct(black_box(wrapper.tool())).await;
                }
                start.elapsed()
            })
        })
    });
    group.bench_function("wrapped", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    wrapped(black_box(wrapper)).await;
                }
                start.elapsed()
            })
        })
    });
    group.finish();
}

/// Allocations per call of each path, counted over many calls inside one `block_on`.
fn allocations_per_call(rt: &Runtime, wrapper: &HookToolWrapper<Constant>) -> (f64, f64) {
    const CALLS: u64 = 10_000;
    rt.block_on(async {
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for _ in 0..CALLS {
            direct(wrapper.tool()).await;
        }
        let middle = ALLOCATIONS.load(Ordering::Relaxed);
        for _ in 0..CALLS {
            wrapped(wrapper).await;
        }
        let after = ALLOCATIONS.load(Ordering::Relaxed);
        (
            (middle - before) as f64 / CALLS as f64,
            (after - middle) as f64 / CALLS as f64,
        )
    })
}

fn report(rt: &Runtime, wrapper: &HookToolWrapper<Constant>) {
    common::heading("wrapper: no hook listening, a tool that returns a constant");
    let direct = common::line("tool.execute (direct)", "wrapper/direct");
    let wrapped = common::line("HookToolWrapper::execute", "wrapper/wrapped");
    if let (Some(direct), Some(wrapped)) = (direct, wrapped) {
        let extra = wrapped.median - direct.median;
        common::verdict(
            "extra per call",
            common::Ns(extra),
            extra <= 50.0,
            "<= 50 ns",
        );
    }
    let (direct, wrapped) = allocations_per_call(rt, wrapper);
    common::verdict(
        "allocations per call: direct / wrapped",
        format!("{direct} / {wrapped}"),
        direct == wrapped,
        "equal",
    );
}
