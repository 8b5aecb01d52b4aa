// Reads one item of a list a test has just fetched, failing the test (not the type checker) when it is missing.
import { assert } from 'chai';

/** The item at `index` of `items`; fails the test, naming the list's length, when there is none. */
export function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  assert.isDefined(item, `expected an item at index ${index} of a list of ${items.length}`);
  return item;
}
