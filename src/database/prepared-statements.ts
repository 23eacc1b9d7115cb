import { createHash } from 'node:crypto';

/**
 * Names for statements whose text is built per request from a bounded vocabulary (the history filters): the same
 * text gets the same name, so each connection parses and plans it once (`QueryOptions.name`). At most `capacity`
 * texts are ever named; once full, `nameOf` answers undefined for new texts (they run unprepared), so callers cannot
 * grow the backends' memory without bound.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly prefix: string,
    private readonly capacity: number,
  ) {}

  nameOf(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= this.capacity) return known;
    const name = `${this.prefix}_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    this.names.set(text, name);
    return name;
  }
}
