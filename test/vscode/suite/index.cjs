// Runs inside the VS Code that @vscode/test-electron starts: the extension's commands against its
// in-process gateway, checked through the VS Code API (CommonJS: the extension host loads it with require).
const assert = require('node:assert/strict');
const path = require('node:path');
const vscode = require('vscode');

async function run() {
  const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
  const extension = vscode.extensions.getExtension('tollgate.tollgate-vscode');
  assert.ok(extension, 'the extension is installed');

  const broken = await vscode.workspace.openTextDocument(path.join(folder, 'broken.sql'));
  await vscode.window.showTextDocument(broken);
  await vscode.commands.executeCommand('tollgate.runFile');
  const diagnostics = vscode.languages.getDiagnostics(broken.uri);
  assert.equal(diagnostics.length, 1, 'one diagnostic on the failing statement');
  assert.equal(diagnostics[0].range.start.line, 1);
  assert.match(diagnostics[0].message, /near "SELEC": syntax error/);

  const one = await vscode.workspace.openTextDocument(path.join(folder, 'one.sql'));
  await vscode.window.showTextDocument(one);
  await vscode.commands.executeCommand('tollgate.runFile');
  assert.equal(vscode.languages.getDiagnostics(one.uri).length, 0);
  console.log('test-electron suite: 2 checks passed');
}

module.exports = { run };
