-- Decisions 11 and 12: the units of stock each line took when it arrived, so a cancellation never
-- gives back more than was taken (a Sku with 2 left and a line of 5 takes 2, and cancelling the
-- line gives back 2). Lines stored before this migration keep null, read as their quantity: what
-- cancellations gave back until now, so their behaviour does not change and no backfill rewrites
-- every line.
ALTER TABLE `order_items` ADD `stock_taken` integer;
--> statement-breakpoint
-- An import takes a page's stock around the insert of its lines: the Skus are first lowered by
-- all that the page's new lines ask, without stopping at 0, so that the insert still reads what
-- each Sku had and gives every line its share (src/orders/orders.writes.ts). Each line written
-- then brings its Sku back to 0 if it is below, in the same statement, so no quantity below 0
-- outlives the insert (whatever writes lines: elsewhere there is none below 0 to mend).
CREATE TRIGGER order_items_stock_settled AFTER INSERT ON order_items BEGIN
  UPDATE products SET quantity = 0
    WHERE store_id = (SELECT store_id FROM orders WHERE id = new.order_id) AND sku = new.sku AND quantity < 0;
END;
