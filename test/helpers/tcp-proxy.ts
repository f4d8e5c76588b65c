/**
 * A TCP proxy the test can cut (issue 28): the server under test connects to its database
 * through it, and `cut()` makes the database unreachable exactly as a network failure or a
 * stopped server does (open connections reset, new ones refused) without touching the shared
 * PostgreSQL server; `restore()` listens again on the same port. `alternate()` mode spreads
 * connections over several targets in turn (two server processes behind one address).
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targets: { host: string; port: number }[]): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let next = 0;
  let server: net.Server;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server = net.createServer((incoming) => {
        const target = targets[next++ % targets.length]!;
        const outgoing = net.connect(target.port, target.host);
        for (const socket of [incoming, outgoing]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        incoming.pipe(outgoing).pipe(incoming);
        incoming.on('close', () => outgoing.destroy());
        outgoing.on('close', () => incoming.destroy());
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
    });
  const port = await listen(0);
  const stop = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.resetAndDestroy();
    await closed;
  };
  return {
    port,
    cut: stop,
    async restore() {
      await listen(port);
    },
    close: stop,
  };
}
