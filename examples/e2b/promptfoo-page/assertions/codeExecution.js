// assertions/codeExecution.js
import { Sandbox } from '@e2b/code-interpreter';

export default async function(output, context) {
  const { vars } = context;
  const sandbox = await Sandbox.create();
  
  try {
    // Add test code to the generated function
    const fullCode = output + '\n\n' + vars.testCode;
    
    // Execute in sandbox
    const execution = await sandbox.runCode(fullCode);
    const stdout = execution.logs.stdout.join('\n').trim();
    
    // Check if output matches expected
    const pass = stdout === vars.expectedOutput;
    
    return {
      pass,
      score: pass ? 1 : 0,
      reason: pass 
        ? `Output matches expected: "${vars.expectedOutput}"`
        : `Got "${stdout}", expected "${vars.expectedOutput}"`
    };
  } finally {
    await sandbox.kill();
  }
}
