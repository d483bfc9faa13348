// Linux scheduling policies of threads, read from /proc, for the tests of the password threads'
// priority (decision 014).
import { readdirSync, readFileSync } from "node:fs";

export const SCHED_OTHER = 0;
export const SCHED_IDLE = 5;

/** The policy in a /proc stat file: field 41, counting the fields after the command's ")" from 3. */
export function schedulingPolicy(statPath: string): number {
  const stat = readFileSync(statPath, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[41 - 3]);
}

/** The policy of each thread of a process. */
export function threadPolicies(pid: number): { tid: number; policy: number }[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => ({ tid: Number(tid), policy: schedulingPolicy(`/proc/${pid}/task/${tid}/stat`) }));
}
