// One download and one compile of the wasm module for the page and all its workers. The page
// compiles www/pkg/dp_playground_bg.wasm once, streaming (`compiledModule`), initialises its own
// bindings from it, and hands the compiled WebAssembly.Module to each worker it starts
// (`startWorker`): a module can be posted to a worker, and instantiating it there needs no fetch
// and no compile. A worker waits for it (`moduleFromPage`) before it reads any other message.

/** The type of the one message that carries the module (every other message has its own). */
const WASM_MODULE = 'wasm-module';

let compiled = null;

/**
 * The compiled module, fetched and compiled on the first call only. Streaming compilation needs
 * the server to send `application/wasm`; a host that sends another type gets the same bytes
 * compiled from the one response.
 */
export function compiledModule() {
  compiled ??= (async () => {
    const response = await fetch(new URL('../pkg/dp_playground_bg.wasm', import.meta.url));
    if (!response.ok) throw new Error(`the wasm module could not be loaded (HTTP ${response.status})`);
    try {
      return await WebAssembly.compileStreaming(response.clone());
    } catch {
      return WebAssembly.compile(await response.arrayBuffer());
    }
  })();
  return compiled;
}

/** Starts the module worker at `url` and posts it the compiled module as soon as it exists. */
export function startWorker(url) {
  const worker = new Worker(url, { type: 'module' });
  compiledModule().then(
    (module) => worker.postMessage({ type: WASM_MODULE, module }),
    (e) => worker.dispatchEvent(new ErrorEvent('error', { message: String(e?.message ?? e) })),
  );
  return worker;
}

/**
 * In a worker: resolves once the page's module has arrived and `init` (the wasm-bindgen glue's
 * default export) has instantiated it. Call it before setting `self.onmessage`: the module's
 * message then stops here and never reaches the worker's own handler, and a handler that awaits
 * the returned promise reads the page's other messages in the order they were sent.
 */
export function moduleFromPage(init) {
  return new Promise((resolve, reject) => {
    self.addEventListener('message', function once(event) {
      if (event.data?.type !== WASM_MODULE) return;
      event.stopImmediatePropagation();
      self.removeEventListener('message', once);
      init({ module_or_path: event.data.module }).then(resolve, reject);
    });
  });
}
