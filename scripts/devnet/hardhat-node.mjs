// Runs Hardhat's CLI (`node scripts/devnet/hardhat-node.mjs node --port 8545 …`, the same arguments as `hardhat`)
// and exits when the process that started it goes away. That process holds our stdin open: end-of-file means it
// exited, even when it was killed with SIGKILL and no exit handler of its own could run, so no chain outlives a
// crashed test run or devnet.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();

// Hardhat's CLI reads process.argv.slice(2), which are our own arguments.
await import('hardhat/internal/cli/cli.js');
