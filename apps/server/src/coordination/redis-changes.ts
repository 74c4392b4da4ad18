import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ChangeChannel, SHARED_CHANGES } from './changes';
import type { SharedChange } from './changes';

const isChange = (v: unknown): v is SharedChange => (SHARED_CHANGES as readonly unknown[]).includes(v);

/**
 * Change notifications on one pub/sub channel of the deployment's prefix. Publishing uses the shared client;
 * receiving needs a connection of its own (a subscribed connection can do nothing else). A message carries the
 * sender's id, so an instance does not reload what it has just saved itself.
 */
export class RedisChangeChannel extends ChangeChannel {
  private readonly origin = randomUUID();
  private readonly channel: string;
  private readonly subscriber: Redis;
  /** Settled once the first SUBSCRIBE, sent when the connection is first ready, has been answered. */
  readonly listening: Promise<void>;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    onError: (err: unknown) => void,
  ) {
    super();
    this.channel = `${prefix}changes`;
    this.subscriber = redis.duplicate();
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.receive(message);
    });
    let subscribed = false;
    let subscribing: Promise<void> | null = null;
    const subscribe = () =>
      (subscribing ??= this.subscriber.subscribe(this.channel).then(
        () => {
          subscribed = true;
        },
        (err: unknown) => {
          subscribing = null;
          onError(err);
        },
      ));
    let connected = false;
    let firstAttempt!: () => void;
    this.listening = new Promise((resolve) => (firstAttempt = resolve));
    this.subscriber.on('ready', () => {
      // The first SUBSCRIBE goes once the connection is ready (sent before, it failed at every start: the offline
      // queue is off). ioredis subscribes again after a reconnection, but not when a SUBSCRIBE failed.
      if (!subscribed) void subscribe().then(firstAttempt);
      // What was published while the connection was down is lost: reload it all.
      if (connected) for (const change of SHARED_CHANGES) this.deliver(change);
      connected = true;
    });
  }

  private receive(message: string): void {
    let parsed: { change?: unknown; origin?: unknown };
    try {
      parsed = JSON.parse(message) as typeof parsed;
    } catch {
      return;
    }
    if (parsed.origin !== this.origin && isChange(parsed.change)) this.deliver(parsed.change);
  }

  async publish(change: SharedChange): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify({ change, origin: this.origin }));
  }

  async close(): Promise<void> {
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
