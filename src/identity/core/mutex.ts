/**
 * Serializes async sections inside one Durable Object instance. Input gates do not hold while an
 * object awaits D1 or fetch, so sections that read, decide and write across such awaits take this lock.
 */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.tail.then(section, section);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
