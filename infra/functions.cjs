// The service's functions for serverless.yml, made at package time from the
// route catalog, the integration registry and the state machines' steps
// (infra/functions.ts):
//   functions: [ ${file(./infra/functions.cjs):functions}, { ...declared in serverless.yml } ]
// Serverless resolves `${file(...)}` of a .cjs by calling its export. The
// declarations are TypeScript, which Node 24 (the project's, through npm/npx) runs.
module.exports = async () => {
  try {
    return { functions: (await import('./functions.ts')).functions };
  } catch (error) {
    if (error && error.code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new Error(`The functions are made by TypeScript modules, which need Node 24 (this is ${process.version}): run serverless through npx or npm`);
    }
    throw error;
  }
};
