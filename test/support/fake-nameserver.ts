import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';

/** What the nameserver does for one name: answer these records (NOERROR), say NXDOMAIN, or never answer. */
export type Zone =
  { readonly a?: readonly string[]; readonly aaaa?: readonly string[] } | 'nxdomain' | 'silent';

const TYPE_A = 1;
const TYPE_AAAA = 28;

/**
 * A real DNS server over UDP on loopback, for resolver tests without a network: answers A and AAAA queries from a
 * table (names lowercase, no trailing dot), NXDOMAIN for `nxdomain` and for names it does not know, and nothing at
 * all for `silent` (a nameserver that never answers). Counts the queries it gets per name.
 */
export class FakeNameserver {
  readonly queries = new Map<string, number>();
  private socket: Socket | null = null;
  port = 0;

  constructor(private readonly zones: Readonly<Record<string, Zone>>) {}

  /** `127.0.0.1:<port>`, for `Resolver.setServers`. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const socket = createSocket('udp4');
    socket.on('message', (message, from) => this.answer(message, from));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    this.port = socket.address().port;
    this.socket = socket;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.socket ? this.socket.close(() => resolve()) : resolve()));
    this.socket = null;
  }

  private answer(query: Buffer, from: RemoteInfo): void {
    // Header (12 bytes), then one question: labels, a zero byte, type (2), class (2).
    let offset = 12;
    const labels: string[] = [];
    while (query[offset] !== 0) {
      const length = query[offset];
      labels.push(query.subarray(offset + 1, offset + 1 + length).toString('latin1'));
      offset += 1 + length;
    }
    const questionEnd = offset + 5;
    const type = query.readUInt16BE(offset + 1);
    const name = labels.join('.').toLowerCase();
    this.queries.set(name, (this.queries.get(name) ?? 0) + 1);

    const zone = this.zones[name] ?? 'nxdomain';
    if (zone === 'silent') return;
    const addresses =
      zone === 'nxdomain' ? [] : ((type === TYPE_A ? zone.a : type === TYPE_AAAA ? zone.aaaa : []) ?? []);
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(zone === 'nxdomain' ? 0x8183 : 0x8180, 2); // response, recursion available, rcode
    header.writeUInt16BE(1, 4); // one question
    header.writeUInt16BE(addresses.length, 6);
    const answers = addresses.map((address) => {
      const rdata = isIPv4(address) ? Buffer.from(address.split('.').map(Number)) : v6Bytes(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(60, 6); // TTL
      record.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([record, rdata]);
    });
    this.socket?.send(
      Buffer.concat([header, query.subarray(12, questionEnd), ...answers]),
      from.port,
      from.address,
    );
  }
}

function v6Bytes(address: string): Buffer {
  if (!isIPv6(address)) throw new Error(`${address} is not an IPv6 address`);
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all =
    tail === undefined ? groups(head) : [...groups(head), ...Array(missing).fill('0'), ...groups(tail)];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}
