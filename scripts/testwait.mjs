// testwait.mjs is internal/testwait for the Node test scripts: waits
// bounded in quiet-machine time, which stretch with the machine's load, so
// that a test fails when what it waits for never comes, never because the
// machine is busy (QUAL-3).
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";

// scale is how many times slower than a quiet machine this one runs now:
// runnable threads per core (the larger of the 1- and 5-minute load
// averages and, on Linux, those runnable at this moment), at least 1, times
// MNEMO_TEST_TIMEOUT_SCALE.
export function scale() {
  let load = Math.max(...loadavg().slice(0, 2));
  try {
    const run = Number(readFileSync("/proc/loadavg", "utf8").split(/\s+/)[3].split("/")[0]);
    if (run - 1 > load) load = run - 1;
  } catch {
    // not Linux: the averages alone
  }
  const env = Number(process.env.MNEMO_TEST_TIMEOUT_SCALE);
  return Math.max(1, load / availableParallelism()) * (env > 0 ? env : 1);
}

// ms is baseMs stretched by the slowdown now: for a bound fixed once, such
// as a library's default timeout.
export function ms(baseMs) {
  return Math.round(baseMs * scale());
}

// signal is an AbortSignal that aborts once baseMs of quiet-machine time
// has passed: each stretch of wall time counts divided by the slowdown at
// that moment. Its timer does not keep the process alive.
export function signal(baseMs) {
  const ac = new AbortController();
  let spent = 0;
  let last = Date.now();
  const every = Math.min(Math.max(baseMs / 100, 10), 250);
  const t = setInterval(() => {
    const now = Date.now();
    spent += (now - last) / scale();
    last = now;
    if (spent >= baseMs) {
      clearInterval(t);
      ac.abort(new Error(`testwait: ${baseMs} ms of quiet-machine time passed`));
    }
  }, every);
  t.unref();
  return ac.signal;
}
