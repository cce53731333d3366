/**
 * The adapters warn once per process when the origin's own names (`authorities`)
 * are not configured: without them a signature made for another site verifies.
 */
import { describe, expect, it, vi } from 'vitest';

describe('one-time warning when authorities is not set', () => {
  it('hono, node, express and fastify adapters: one warning per process, none when authorities is set', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      vi.resetModules();
      const { botsig: hono } = await import('../../src/hono');
      const { createNodeMiddleware } = await import('../../src/node');
      hono({ keys: [], authorities: ['origin.example'] });
      expect(warn).not.toHaveBeenCalled();
      hono({ keys: [] });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/authorities/);
      createNodeMiddleware({ keys: [] });
      hono({ keys: [] });
      expect(warn).toHaveBeenCalledTimes(1);

      vi.resetModules();
      warn.mockClear();
      const { botsig: express } = await import('../../src/express');
      express({ keys: [] });
      expect(warn).toHaveBeenCalledTimes(1);

      vi.resetModules();
      warn.mockClear();
      const Fastify = (await import('fastify')).default;
      const { botsig: fastifyPlugin } = await import('../../src/fastify');
      const app = Fastify();
      await app.register(fastifyPlugin, { keys: [] });
      await app.ready();
      await app.close();
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });
});
