/**
 * Every node and credential names a light and a dark icon; both exist, and they differ, because n8n shows the
 * dark one on its dark canvas, where the light icon's dark-on-light drawing would be hard to see.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import { TicketMarketplaceCallbackApi } from '../../../credentials/TicketMarketplaceCallbackApi.credentials';
import { TicketMarketplace } from '../../../nodes/TicketMarketplace/TicketMarketplace.node';
import { TicketMarketplaceTrigger } from '../../../nodes/TicketMarketplaceTrigger/TicketMarketplaceTrigger.node';

const REPO = join(__dirname, '..', '..', '..');

const owners = [
	{
		name: 'Ticket Marketplace node',
		icon: new TicketMarketplace().description.icon,
		from: 'nodes/TicketMarketplace',
	},
	{
		name: 'Ticket Marketplace Trigger node',
		icon: new TicketMarketplaceTrigger().description.icon,
		from: 'nodes/TicketMarketplaceTrigger',
	},
	{ name: 'API credential', icon: new TicketMarketplaceApi().icon, from: 'credentials' },
	{
		name: 'callback credential',
		icon: new TicketMarketplaceCallbackApi().icon,
		from: 'credentials',
	},
];

function iconFile(from: string, reference: unknown): string {
	expect(typeof reference).toBe('string');
	return readFileSync(join(REPO, from, String(reference).replace(/^file:/, '')), 'utf8');
}

describe.each(owners)('$name icons', ({ icon, from }) => {
	it('names a light and a dark SVG that both exist and differ', () => {
		expect(icon).toEqual({
			light: expect.stringMatching(/^file:.*\.svg$/),
			dark: expect.stringMatching(/^file:.*\.dark\.svg$/),
		});
		const { light, dark } = icon as { light: string; dark: string };
		const lightSvg = iconFile(from, light);
		const darkSvg = iconFile(from, dark);
		expect(lightSvg).toMatch(/^<svg /);
		expect(darkSvg).toMatch(/^<svg /);
		expect(darkSvg).not.toEqual(lightSvg);
	});
});
