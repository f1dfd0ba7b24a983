//! The page as an essay: intro, compute, bandwidth, overhead, conclusion, measure,
//! tools.
//! Prose is ours; each widget sits beside the idea it shows.

use super::widgets::framed;
use super::Ctx;
use leptos::prelude::*;

#[component]
pub fn Essay(ctx: Ctx) -> impl IntoView {
    view! {
        <article class="essay">
            <section id="compute" class="chapter">
                <h2>"Compute: the factory"</h2>
                <p>
                    "The FLOPs a model needs are mostly fixed by the model: you can only shrink the time "
                    "spent on them by running them on faster units. Everything else — moving bytes, "
                    "waiting for the CPU — is waste you can attack. So the goal is to spend as much of "
                    "each step as possible computing. That gets harder every year, because the "
                    "arithmetic in each new chip grows faster than the memory system that feeds it."
                </p>
                {framed(ctx, "generations")}
                <p>
                    "And not all FLOPs are equal. Modern GPUs put most of their arithmetic in units "
                    "that only do matrix multiplication. A layer norm or an activation cannot use them."
                </p>
                {framed(ctx, "tensor-cores")}
                {framed(ctx, "bert")}
            </section>
            <section id="bandwidth" class="chapter">
                <h2>"Bandwidth: the trucks"</h2>
                <p>
                    "Data lives in DRAM (the warehouse); arithmetic happens next to small on-chip "
                    "memories (the factory floor). Every kernel has to ship its inputs in and its outputs "
                    "back out. If the factory finishes before the trucks arrive, it idles — and building "
                    "a bigger factory changes nothing."
                </p>
                {framed(ctx, "factory")}
                <p>
                    "A chain of pointwise ops run one kernel at a time ships the whole tensor to the "
                    "warehouse and back after every op. Fusing the chain into one kernel ships it once."
                </p>
                {framed(ctx, "fusion")}
                <p>
                    "How much work per element does it take before the trucks stop being the "
                    "bottleneck? Sweep it:"
                </p>
                {framed(ctx, "microbench")}
            </section>
            <section id="overhead-chapter" class="chapter">
                <h2>"Overhead: the instruction desk"</h2>
                <p>
                    "Before the GPU runs anything, the CPU must decide what to run: the Python "
                    "interpreter resolves the operator, the framework picks a kernel for the dtype and "
                    "device, the driver launches it. That takes microseconds per op. The GPU works "
                    "asynchronously, so while kernels are long the CPU races ahead and this cost hides; "
                    "when kernels are tiny, the GPU sits idle between them."
                </p>
                {framed(ctx, "overhead")}
            </section>
            <section id="conclusion" class="chapter">
                <h2>"Conclusion: treat the regime you are in"</h2>
                <p>
                    "Like diagnosing over- versus under-fitting before touching a model, find where the "
                    "time goes first. A remedy pays off only as far as the share of time it attacks, so a "
                    "step labelled by its largest share can still gain most from a remedy meant for "
                    "another regime. The table tries every remedy on the current step."
                </p>
                {framed(ctx, "remedies")}
            </section>
            <section id="measure" class="chapter">
                <h2>"Measure: your own GPU"</h2>
                <p>
                    "Everything above runs on datasheet numbers. This section asks the GPU in front of "
                    "you instead: how fast it copies a large buffer, how many multiplies it does per "
                    "second once there is enough work per byte, where the fused chain stops being "
                    "memory-bound, and what one kernel launch costs. The answers are drawn as a roofline "
                    "and can replace the explorer's numbers, so every widget then describes this machine."
                </p>
                {framed(ctx, "lab")}
            </section>
            <section id="beyond" class="chapter">
                <h2>"Beyond the essay: LLMs and diffusion transformers"</h2>
                <p>
                    "The same three regimes describe what GPUs spend their time on today. Generating "
                    "text one token at a time reads every weight of the model for each step, whatever "
                    "the batch, so small batches wait on memory and batching is close to free until the "
                    "matmuls finally reach the ridge; a long context adds a cache of keys and values "
                    "that each sequence reads on its own. Processing a prompt is the opposite case: "
                    "thousands of tokens share each weight read and the tensor cores set the pace. Pick "
                    "a model and the hardware above, drag the batch and the context, and watch which "
                    "part of the step grows."
                </p>
                {framed(ctx, "llm")}
                <p>
                    "Image and video generators run a transformer too, once per denoising step. A "
                    "small image is only a few hundred tokens, so at batch one each kernel finishes "
                    "before the CPU has launched the next; a video clip is tens of thousands of tokens "
                    "and attention takes over. The widget below says which of the three regimes holds "
                    "and what each remedy would buy."
                </p>
                {framed(ctx, "dit")}
            </section>
            <section id="tools" class="chapter">
                <h2>"Tools"</h2>
                {framed(ctx, "calculator")}
                {framed(ctx, "hardware")}
            </section>
        </article>
    }
}
