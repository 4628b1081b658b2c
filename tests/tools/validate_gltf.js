// Validates glTF files with the Khronos glTF-Validator (npm package gltf-validator, installed by
// `.ci/setup --dev` into .ci/node_modules). Usage: node validate_gltf.js FILE...
// Prints one JSON line per file: {path, errors, warnings, messages: [{code, severity, pointer, message}]}.
const fs = require("fs");
const path = require("path");
const validator = require(path.join(__dirname, "..", "..", ".ci", "node_modules", "gltf-validator"));

async function main() {
  for (const file of process.argv.slice(2)) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      maxIssues: 50,
      externalResourceFunction: (uri) => Promise.resolve(new Uint8Array(
        fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(uri))))),
    });
    const messages = report.issues.messages.map((m) => ({
      code: m.code, severity: m.severity, pointer: m.pointer || "", message: m.message }));
    console.log(JSON.stringify({ path: file, errors: report.issues.numErrors,
                                 warnings: report.issues.numWarnings, messages }));
  }
}

main().catch((error) => { console.error(String(error)); process.exit(1); });
