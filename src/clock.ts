// Time comes from an injected Clock so tests move time instead of sleeping.

/** Source of the current time. */
export interface Clock {
  now(): Date;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock tests set and advance by hand. */
export class TestClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-01-15T09:00:00.000Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  advanceDays(days: number): void {
    this.advance(days * 86_400_000);
  }
  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }
}

/** `YYYY-MM-DD` plus whole days (negative to go back). */
export function addDays(date: string, days: number): string {
  return isoDate(new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000));
}

/** `YYYY-MM-DD` of an instant in UTC. */
export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}
