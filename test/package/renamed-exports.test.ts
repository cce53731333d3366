/**
 * Each exported name has one meaning; the names it replaced stay for one release as
 * deprecated aliases of the new ones (not copies that could drift apart).
 */
import { describe, expect, it } from 'vitest';
import * as express from '../../src/express';
import * as fastify from '../../src/fastify';
import * as httpsig from '../../src/httpsig';
import * as node from '../../src/node';

describe('renamed exports keep their old names as aliases', () => {
  it('botsig/express and botsig/fastify: createVerifier is createNodeVerifier, as botsig/node names it', () => {
    expect(express.createNodeVerifier).toBe(node.createNodeVerifier);
    expect(express.createVerifier).toBe(node.createNodeVerifier);
    expect(fastify.createNodeVerifier).toBe(node.createNodeVerifier);
    expect(fastify.createVerifier).toBe(node.createNodeVerifier);
  });

  it('botsig/httpsig: renameSignatureLabel is relabelSignature', () => {
    expect(httpsig.renameSignatureLabel).toBe(httpsig.relabelSignature);
    const fields: httpsig.SignatureFields = { 'signature-input': 'a=();created=1', signature: 'a=:AA==:' };
    expect(httpsig.relabelSignature(fields, 'a', 'b')).toEqual({ 'signature-input': 'b=();created=1', signature: 'b=:AA==:' });
  });
});
