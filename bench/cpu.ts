// CPU time per request, read from /proc (Linux). Issue 31 compares event-sourced loads with plain CRUD ones on a
// 2-core machine: where a closed loop keeps both cores busy, one load's share of another's throughput cannot pass the
// inverse ratio of their CPU per request, so this figure says how much of a gap is work done rather than waiting.
import fs from 'node:fs';

const TICK_MS = 1000 / 100; // USER_HZ: 100 on every Linux /proc reports in

/** CPU used so far, in ms: the service (a process and its descendants), PostgreSQL's processes, the machine. */
export interface CpuReading {
  /** The service's processes by pid (a split service has several; each runs its JavaScript on one thread). */
  byProcess: Map<number, number>;
  serviceMs: number;
  databaseMs: number;
  clientMs: number;
  machineBusyMs: number;
  machineMs: number;
}

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  ms: number;
  /** CPU of its children that exited and were waited for (PostgreSQL's closed connections land in the postmaster's). */
  reapedMs: number;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid ... utime stime cutime cstime: comm may hold spaces and parentheses, so split after the last ')'.
    const close = stat.lastIndexOf(')');
    const rest = stat.slice(close + 2).split(' ');
    out.push({ pid: Number(name), comm: stat.slice(stat.indexOf('(') + 1, close), ppid: Number(rest[1]), ms: (Number(rest[11]) + Number(rest[12])) * TICK_MS, reapedMs: (Number(rest[13]) + Number(rest[14])) * TICK_MS });
  }
  return out;
}

/** CPU so far of `root` and its descendants, of every `postgres` process, of this process and of the whole machine. */
export function readCpu(root: number): CpuReading {
  const all = processes();
  const tree = new Set([root]);
  // Parents are listed before their children except after a pid wrap: repeat until nothing is added.
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (tree.has(p.pid) || !tree.has(p.ppid)) continue;
      tree.add(p.pid);
      grew = true;
    }
  }
  const [, ...times] = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = times;
  const usage = process.cpuUsage();
  const service = all.filter((p) => tree.has(p.pid));
  return {
    byProcess: new Map(service.map((p) => [p.pid, p.ms])),
    serviceMs: service.reduce((s, p) => s + p.ms, 0),
    // A connection closed during a load takes its backend's CPU into the postmaster's reaped children's.
    databaseMs: all.filter((p) => p.comm === 'postgres').reduce((s, p) => s + p.ms + p.reapedMs, 0),
    clientMs: (usage.user + usage.system) / 1000,
    machineBusyMs: (user + nice + system + irq + softirq + steal) * TICK_MS,
    machineMs: (user + nice + system + idle + iowait + irq + softirq + steal) * TICK_MS,
  };
}

type Summed = Exclude<keyof CpuReading, 'byProcess'>;

/** CPU a load's slices used, summed; per request once divided by its requests. */
export class CpuTotals {
  private readonly sum: Record<Summed, number> = { serviceMs: 0, databaseMs: 0, clientMs: 0, machineBusyMs: 0, machineMs: 0 };
  private readonly byProcess = new Map<number, number>();
  private wallMs = 0;

  /** Runs `fn` and adds the CPU used meanwhile. */
  async during<T>(root: number, fn: () => Promise<T>): Promise<T> {
    const a = readCpu(root);
    const t0 = performance.now();
    const r = await fn();
    this.wallMs += performance.now() - t0;
    const b = readCpu(root);
    for (const k of Object.keys(this.sum) as Summed[]) this.sum[k] += b[k] - a[k];
    for (const [pid, ms] of b.byProcess) this.byProcess.set(pid, (this.byProcess.get(pid) ?? 0) + ms - (a.byProcess.get(pid) ?? 0));
    return r;
  }

  /** Per request: the service's and the database's ms (PGlite's run in the service), and how busy the machine was. */
  perRequest(requests: number): CpuFigures {
    const s = this.sum;
    const busiest = Math.max(0, ...this.byProcess.values());
    return {
      service_ms: s.serviceMs / requests,
      database_ms: s.databaseMs / requests,
      client_ms: s.clientMs / requests,
      busiest_process: this.wallMs ? busiest / this.wallMs : Number.NaN,
      machine_busy: s.machineMs ? s.machineBusyMs / s.machineMs : Number.NaN,
    };
  }
}

/** CPU per request of a load. */
export interface CpuFigures {
  service_ms: number;
  database_ms: number;
  /** The bench process's own (the load generator and whatever else it runs). */
  client_ms: number;
  /**
   * CPU of the service's busiest process over the slices' wall time: near 100%, its one JavaScript thread is what
   * bounds the load (libuv's threads count in too, so it can pass 100% a little).
   */
  busiest_process: number;
  /** Share of the machine's CPU time that was busy during the load's slices (all processes). */
  machine_busy: number;
}

/** "0.41 + 0.52 ms (client 0.20 ms; busiest service process 97% of a core, machine 85% busy)". */
export function formatCpu(c: CpuFigures): string {
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  return `${c.service_ms.toFixed(2)} + ${c.database_ms.toFixed(2)} ms (client ${c.client_ms.toFixed(2)} ms; busiest service process ${pct(c.busiest_process)} of a core, machine ${pct(c.machine_busy)} busy)`;
}
