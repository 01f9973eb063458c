// Runs before `npm start` and `npm test` on whatever Node npm found first. The
// project brings Node 24 as a devDependency; if install scripts were skipped,
// npm silently falls back to the system Node, so say so loudly instead.
const major = Number(process.versions.node.split('.')[0]);
if (major !== 24) {
  console.error(
    `This project runs on Node 24, but npm ran Node ${process.versions.node}.\n` +
      'Node 24 comes with `npm install` (the "node" devDependency); it is missing when install scripts were skipped.\n' +
      'Fix: rm -rf node_modules && npm install   (without --ignore-scripts)',
  );
  process.exit(1);
}
