/**
 * `npm run scan`: n8n's community-package scanner on the packed tarball, offline, each finding marked as a documented
 * exception (docs/lint-exceptions.md) or not. Exits 1 when a finding is not documented or a documented one no longer
 * occurs. The same check runs in the unit tests (test/package/scan.test.ts).
 */
import { formatReport, scanPackage } from './lib/scan';

const report = scanPackage();
console.log(formatReport(report));
process.exit(report.undocumented.length || report.miscounted.length ? 1 : 0);
