/**
 * n8n's community-package scanner (`@n8n/scan-community-package`, its `analyzePackage`) on the packed tarball,
 * offline (scripts/lib/scan.ts): every finding must be a known exception documented in docs/lint-exceptions.md (the
 * n8n Cloud rules this self-hosted package does not meet by design), and every documented exception must still
 * occur as often as documented. The report, each finding marked, is printed for CI's log.
 */
import { formatReport, scanPackage, type ScanReport } from '../../scripts/lib/scan';

jest.setTimeout(180_000);

let report: ScanReport;
beforeAll(() => {
	report = scanPackage();
	console.log(formatReport(report));
});

it('finds nothing but the exceptions docs/lint-exceptions.md documents', () => {
	expect(report.findings.length).toBeGreaterThan(0);
	expect(report.undocumented.map((f) => `${f.file}:${f.line} ${f.rule} ${f.message}`)).toEqual([]);
});

it('finds every documented exception as often as documented (one that no longer occurs is taken out of the docs)', () => {
	expect(
		report.miscounted.map(
			(e) => `${e.rule} ${e.file} ${e.name}: documented ×${e.count}, found ×${e.found}`,
		),
	).toEqual([]);
});
