/** Cancellable waits, so stopping the sandbox leaves no timer behind. */
export class TimerRegistry {
	private pending = new Map<NodeJS.Timeout, () => void>();
	private cancelled = false;

	/**
	 * Resolves true after `ms`, or false at once if the registry is (or becomes) cancelled or `signal` aborts;
	 * either way the timer is cleared.
	 */
	sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
		if (this.cancelled || signal?.aborted) return Promise.resolve(false);
		return new Promise((resolve) => {
			const onAbort = () => {
				clearTimeout(timer);
				this.pending.delete(timer);
				resolve(false);
			};
			const timer = setTimeout(
				() => {
					this.pending.delete(timer);
					signal?.removeEventListener('abort', onAbort);
					resolve(true);
				},
				Math.max(0, ms),
			);
			this.pending.set(timer, () => {
				signal?.removeEventListener('abort', onAbort);
				resolve(false);
			});
			signal?.addEventListener('abort', onAbort, { once: true });
		});
	}

	get isCancelled(): boolean {
		return this.cancelled;
	}

	cancelAll(): void {
		this.cancelled = true;
		for (const [timer, wake] of this.pending) {
			clearTimeout(timer);
			wake();
		}
		this.pending.clear();
	}
}
