-- Decisions 11 and 12: the units of stock each line took when it arrived, so a cancellation never
-- gives back more than was taken (a Sku with 2 left and a line of 5 takes 2, and cancelling the
-- line gives back 2). Lines stored before this migration keep null, read as their quantity: what
-- cancellations gave back until now, so their behaviour does not change and no backfill rewrites
-- every line.
ALTER TABLE `order_items` ADD `stock_taken` integer;
