CREATE TABLE `console_sign_outs` (
	`session_id` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
