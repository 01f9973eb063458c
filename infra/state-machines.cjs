// The state machines for CloudFormation, built at package time from the
// integration registry (statemachines/cloudformation.ts):
//   ${file(./infra/state-machines.cjs):<machine>.definition | .substitutions | .invokes}
// Serverless resolves `${file(...)}` of a .cjs by calling its export. The
// builders are TypeScript, which Node 24 (the project's, through npm/npx) runs.
module.exports = async () => {
  try {
    return (await import('../statemachines/cloudformation.ts')).templates;
  } catch (error) {
    if (error && error.code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new Error(`The state machines are built by TypeScript modules, which need Node 24 (this is ${process.version}): run serverless through npx or npm`);
    }
    throw error;
  }
};
