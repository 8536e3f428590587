// node-redis (@redis/client 5, from the npm registry) with RESP: 3 against a
// running `redsim server`: the HELLO 3 handshake, the RESP3 reply types as
// the client decodes them (map, set, double, null, boolean, verbatim string,
// big number), pub/sub push messages on a RESP3 connection, and client
// tracking's invalidation pushes (emitInvalidate and the client-side cache).
// Every check compares a decoded reply's type and value; a failure throws.
//
// Usage: node node_redis_test.js <port> <dir holding node_modules/@redis/client>
// Run by tools/server/node_redis_test.sh, which installs the package.
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');

const port = Number(process.argv[2]);
const modules = path.join(process.argv[3], 'node_modules');
const { createClient, RESP_TYPES } = require(path.join(modules, '@redis/client'));

const options = { socket: { host: '127.0.0.1', port }, RESP: 3 };
let checks = 0;
function check(name, fn) {
  return fn().then(() => {
    checks += 1;
    console.log(`ok: ${name}`);
  });
}

// Resolves with the first value `register` hands to its callback, or
// rejects after `ms` (the server never sent the push).
function nextEvent(register, ms, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

async function main() {
  const client = createClient(options);
  client.on('error', (e) => console.error('client error:', e));
  await client.connect();
  const other = createClient(options);
  other.on('error', (e) => console.error('client error:', e));
  await other.connect();
  await client.flushAll();

  await check('HELLO 3 answers a map with proto 3', async () => {
    const hello = await client.sendCommand(['HELLO', '3'], {
      typeMapping: { [RESP_TYPES.MAP]: Map },
    });
    assert.ok(hello instanceof Map, 'HELLO reply is a RESP3 map');
    assert.equal(hello.get('server'), 'redis');
    assert.equal(hello.get('version'), '7.0.15');
    assert.equal(hello.get('proto'), 3);
    assert.equal(hello.get('mode'), 'standalone');
    assert.equal(hello.get('role'), 'master');
    assert.deepEqual(hello.get('modules'), []);
  });

  await check('strings, integers and null', async () => {
    assert.equal(await client.set('s', 'v'), 'OK');
    assert.equal(await client.get('s'), 'v');
    assert.equal(await client.get('missing'), null);
    assert.equal(await client.incrBy('n', 41), 41);
    assert.equal(await client.incr('n'), 42);
  });

  await check('HGETALL is a RESP3 map', async () => {
    assert.equal(await client.hSet('h', { a: '1', b: '2' }), 2);
    const raw = await client.sendCommand(['HGETALL', 'h'], {
      typeMapping: { [RESP_TYPES.MAP]: Map },
    });
    assert.ok(raw instanceof Map, 'HGETALL reply is a map');
    assert.deepEqual([...raw.entries()].sort(), [['a', '1'], ['b', '2']]);
    const obj = await client.hGetAll('h');
    assert.deepEqual({ ...obj }, { a: '1', b: '2' });
  });

  await check('SMEMBERS is a RESP3 set', async () => {
    assert.equal(await client.sAdd('set', ['x', 'y', 'z']), 3);
    const raw = await client.sendCommand(['SMEMBERS', 'set'], {
      typeMapping: { [RESP_TYPES.SET]: Set },
    });
    assert.ok(raw instanceof Set, 'SMEMBERS reply is a set');
    assert.deepEqual([...raw].sort(), ['x', 'y', 'z']);
    assert.equal(await client.sIsMember('set', 'y'), 1);
  });

  await check('ZSCORE and ZINCRBY are RESP3 doubles', async () => {
    assert.equal(await client.zAdd('z', [{ score: 1.5, value: 'm' }]), 1);
    const score = await client.sendCommand(['ZSCORE', 'z', 'm']);
    assert.equal(typeof score, 'number', 'a double decodes to a number');
    assert.equal(score, 1.5);
    assert.equal(await client.zIncrBy('z', 2.25, 'm'), 3.75);
    const asString = await client.sendCommand(['ZSCORE', 'z', 'm'], {
      typeMapping: { [RESP_TYPES.DOUBLE]: String },
    });
    assert.equal(asString, '3.75');
    const withScores = await client.zRangeWithScores('z', 0, -1);
    assert.deepEqual(withScores, [{ value: 'm', score: 3.75 }]);
    assert.equal(await client.sendCommand(['ZSCORE', 'z', 'nosuch']), null);
  });

  await check('Lua booleans, big numbers and RESP3 conversions', async () => {
    // Lua booleans: RESP2 forms (1, null) until the script calls
    // redis.setresp(3), then RESP3 booleans.
    assert.equal(await client.sendCommand(['EVAL', 'return true', '0']), 1);
    assert.equal(await client.sendCommand(['EVAL', 'redis.setresp(3); return true', '0']), true);
    assert.equal(
      await client.sendCommand(['EVAL', "redis.setresp(3); return redis.call('exists', 'nosuch') == 1", '0']),
      false,
    );
    const big = await client.sendCommand(
      ['EVAL', "return {big_number='123456789012345678901234567890'}", '0'],
      { typeMapping: { [RESP_TYPES.BIG_NUMBER]: String } },
    );
    assert.equal(big, '123456789012345678901234567890');
    const dbl = await client.sendCommand(['EVAL', 'return {double=3.5}', '0']);
    assert.equal(dbl, 3.5);
    const map = await client.sendCommand(
      ['EVAL', "redis.setresp(3); return redis.call('hgetall', KEYS[1])", '1', 'h'],
      { typeMapping: { [RESP_TYPES.MAP]: Map } },
    );
    assert.ok(map instanceof Map);
    assert.equal(map.get('a'), '1');
  });

  await check('INFO is a verbatim string', async () => {
    const info = await client.sendCommand(['INFO', 'server'], {
      typeMapping: { [RESP_TYPES.VERBATIM_STRING]: String },
    });
    assert.equal(typeof info, 'string');
    assert.match(info, /^# Server\r\n/);
    assert.match(info, /redis_version:7\.0\.15/);
    const lolwut = await client.sendCommand(['LOLWUT']);
    assert.equal(String(lolwut), 'Redis ver. 7.0.15\n');
  });

  await check('errors reach the caller', async () => {
    await assert.rejects(client.sendCommand(['LPUSH', 's', 'x']), /^.*WRONGTYPE/);
    await assert.rejects(client.sendCommand(['NOSUCHCOMMAND']), /unknown command/);
  });

  await check('MULTI/EXEC returns each reply decoded', async () => {
    const replies = await client.multi().set('m1', 'a').get('m1').hGetAll('h').exec();
    assert.equal(replies[0], 'OK');
    assert.equal(replies[1], 'a');
    assert.deepEqual({ ...replies[2] }, { a: '1', b: '2' });
  });

  await check('pub/sub messages arrive as pushes on a RESP3 connection', async () => {
    const sub = client.duplicate();
    sub.on('error', (e) => console.error('client error:', e));
    await sub.connect();
    let deliver;
    await sub.subscribe('chan', (message, channel) => deliver && deliver([message, channel]));
    await sub.pSubscribe('pat*', (message, channel) => deliver && deliver([message, channel]));
    // RESP3: the subscribed connection still runs ordinary commands.
    assert.equal(await sub.ping(), 'PONG');
    let got = nextEvent((cb) => (deliver = cb), 5000, 'message');
    assert.equal(await client.publish('chan', 'hello'), 1);
    assert.deepEqual(await got, ['hello', 'chan']);
    got = nextEvent((cb) => (deliver = cb), 5000, 'pmessage');
    assert.equal(await client.publish('pattern', 'p'), 1);
    assert.deepEqual(await got, ['p', 'pattern']);
    await sub.unsubscribe('chan');
    await sub.pUnsubscribe('pat*');
    assert.equal(await client.publish('chan', 'nobody'), 0);
    sub.destroy();
  });

  await check('CLIENT TRACKING invalidation pushes (emitInvalidate)', async () => {
    const tracked = createClient({ ...options, emitInvalidate: true });
    tracked.on('error', (e) => console.error('client error:', e));
    await tracked.connect();
    const info = await tracked.sendCommand(['CLIENT', 'TRACKINGINFO'], {
      typeMapping: { [RESP_TYPES.MAP]: Map, [RESP_TYPES.SET]: Set },
    });
    assert.ok(info instanceof Map, 'CLIENT TRACKINGINFO is a map');
    assert.deepEqual([...info.get('flags')], ['on']);
    assert.equal(info.get('redirect'), 0);
    assert.equal(await tracked.get('tk'), null);
    const got = nextEvent((cb) => tracked.on('invalidate', cb), 5000, 'invalidation');
    assert.equal(await other.set('tk', 'new'), 'OK');
    const key = await got;
    assert.equal(String(key), 'tk');
    assert.equal(await tracked.get('tk'), 'new');
    tracked.destroy();
  });

  await check('client-side cache is invalidated by another client', async () => {
    const cached = createClient({ ...options, clientSideCache: { ttl: 0, maxEntries: 0 } });
    cached.on('error', (e) => console.error('client error:', e));
    await cached.connect();
    assert.equal(await other.set('ck', 'v1'), 'OK');
    assert.equal(await cached.get('ck'), 'v1');
    assert.equal(await cached.get('ck'), 'v1');
    const stats = cached.clientSideCache.stats();
    assert.equal(stats.hitCount, 1, 'the second GET is served from the cache');
    const got = nextEvent((cb) => cached.on('invalidate', cb), 5000, 'invalidation');
    assert.equal(await other.set('ck', 'v2'), 'OK');
    await Promise.race([got.catch(() => {}), new Promise((r) => setTimeout(r, 500))]);
    // The invalidation push dropped the entry: the next GET asks the server.
    let value = await cached.get('ck');
    for (let i = 0; i < 50 && value !== 'v2'; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      value = await cached.get('ck');
    }
    assert.equal(value, 'v2');
    cached.destroy();
  });

  await client.quit();
  await other.quit();
  console.log(`node-redis RESP3: ${checks} checks passed`);
}

main().catch((e) => {
  console.error('FAILED:', e && e.stack ? e.stack : e);
  process.exit(1);
});
