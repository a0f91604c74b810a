// Validates each OpenAPI document named on the command line with
// @apidevtools/swagger-parser (structure, then every $ref resolved), and
// prints one line per document; exits 1 when any is invalid.
import SwaggerParser from "@apidevtools/swagger-parser";

let failed = false;
for (const file of process.argv.slice(2)) {
  try {
    const api = await SwaggerParser.validate(file);
    console.log(`valid ${file}: ${Object.keys(api.paths).length} paths`);
  } catch (err) {
    failed = true;
    console.log(`INVALID ${file}: ${err.message}`);
  }
}
process.exit(failed ? 1 : 0);
