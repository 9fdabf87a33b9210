// bcoin (a devDependency: the BTC regtest node and an independent serializer in tests) ships no types.
declare module "bcoin";
