# More AWS resource types for test/integration/aws-more-drift.test.ts: applied once, scanned right
# after the apply (no findings), then changed out of band through the AWS APIs and scanned again.
# Left out, each tried against moto 5.2.1 in the sweep (docs/development.md, moto quirks): a Step
# Functions state machine (the provider validates its definition at plan time, which moto does not
# implement: the plan retries for minutes); an aws_db_instance (the provider waits ~80 s for it; its
# first refresh showed only latest_restorable_time and null -> [], both noise rules); a private Route 53
# zone and an RDS parameter group's parameters (moto reads them back without their VPC and parameters);
# an aws_elasticache_cluster (moto describes it without its engine version, and the provider's read
# fails) and Application Auto Scaling (moto has no ListTagsForResource for it: the apply waits forever).
# The load balancer's apply waits ~60 s (the provider polls it after a fixed 30 s delay): the longest path.
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

provider "aws" {
  region = "eu-west-1"
}

variable "lambda_zip" {
  type = string
}

variable "secret_value" {
  type      = string
  sensitive = true
}

data "aws_caller_identity" "current" {}

locals {
  account = data.aws_caller_identity.current.account_id
}

# --- Network -----------------------------------------------------------------------------
# The default VPC and its subnets (moto has them, as every account has): creating a VPC waits ~10 s.
data "aws_vpc" "default" {
  default = true
}

data "aws_subnet" "a" {
  vpc_id            = data.aws_vpc.default.id
  availability_zone = "eu-west-1a"
  default_for_az    = true
}

data "aws_subnet" "b" {
  vpc_id            = data.aws_vpc.default.id
  availability_zone = "eu-west-1b"
  default_for_az    = true
}

resource "aws_security_group" "lb" {
  name        = "more-lb"
  description = "load balancer"
  vpc_id      = data.aws_vpc.default.id
}

# --- IAM ---------------------------------------------------------------------------------
resource "aws_iam_role" "tasks" {
  name = "more-tasks"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = ["ecs-tasks.amazonaws.com", "states.amazonaws.com", "lambda.amazonaws.com", "ec2.amazonaws.com", "scheduler.amazonaws.com"] }
      Action    = "sts:AssumeRole"
    }]
  })
}

resource "aws_iam_instance_profile" "web" {
  name = "more-web"
  role = aws_iam_role.tasks.name
}

resource "aws_iam_openid_connect_provider" "ci" {
  url             = "https://token.actions.githubusercontent.com"
  client_id_list  = ["sts.amazonaws.com"]
  thumbprint_list = ["6938fd4d98bab03faadb97b34396831e3780aea1"]
}

resource "aws_iam_service_linked_role" "autoscaling" {
  aws_service_name = "autoscaling.amazonaws.com"
  custom_suffix    = "more"
}

# --- ECS ---------------------------------------------------------------------------------
resource "aws_ecs_cluster" "main" {
  name = "more"
  setting {
    name  = "containerInsights"
    value = "enabled"
  }
}

# Written as people write it: defaults left out (essential, protocol, empty lists), keys in any order.
resource "aws_ecs_task_definition" "app" {
  family                   = "more-app"
  requires_compatibilities = ["FARGATE"]
  network_mode             = "awsvpc"
  cpu                      = "256"
  memory                   = "512"
  execution_role_arn       = aws_iam_role.tasks.arn
  container_definitions = jsonencode([{
    name         = "app"
    image        = "nginx:1.27"
    portMappings = [{ containerPort = 80 }]
    environment = [
      { name = "MODE", value = "prod" },
      { name = "COLOR", value = "blue" },
    ]
    logConfiguration = {
      logDriver = "awslogs"
      options = {
        awslogs-group         = "/more/app"
        awslogs-region        = "eu-west-1"
        awslogs-stream-prefix = "app"
      }
    }
  }])
}

resource "aws_ecs_service" "app" {
  name            = "more-app"
  cluster         = aws_ecs_cluster.main.id
  task_definition = aws_ecs_task_definition.app.arn
  desired_count   = 1
  launch_type     = "FARGATE"
  network_configuration {
    subnets         = [data.aws_subnet.a.id, data.aws_subnet.b.id]
    security_groups = [aws_security_group.lb.id]
  }
  load_balancer {
    target_group_arn = aws_lb_target_group.app.arn
    container_name   = "app"
    container_port   = 80
  }
  depends_on = [aws_lb_listener.http]
}

# --- ELBv2 -------------------------------------------------------------------------------
resource "aws_lb" "app" {
  name               = "more-app"
  internal           = true
  load_balancer_type = "application"
  security_groups    = [aws_security_group.lb.id]
  subnets            = [data.aws_subnet.a.id, data.aws_subnet.b.id]
}

resource "aws_lb_target_group" "app" {
  name        = "more-app"
  port        = 80
  protocol    = "HTTP"
  target_type = "ip"
  vpc_id      = data.aws_vpc.default.id
  health_check {
    path    = "/healthz"
    matcher = "200"
  }
}

resource "aws_lb_listener" "http" {
  load_balancer_arn = aws_lb.app.arn
  port              = 80
  protocol          = "HTTP"
  default_action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.app.arn
  }
}

resource "aws_lb_listener_rule" "api" {
  listener_arn = aws_lb_listener.http.arn
  priority     = 10
  action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.app.arn
  }
  condition {
    path_pattern {
      values = ["/api/*"]
    }
  }
}

# --- EventBridge -------------------------------------------------------------------------
resource "aws_sns_topic" "alerts" {
  name = "more-alerts"
}

resource "aws_cloudwatch_event_rule" "ecs" {
  name = "more-ecs-stopped"
  event_pattern = jsonencode({
    source        = ["aws.ecs"]
    "detail-type" = ["ECS Task State Change"]
    detail        = { lastStatus = ["STOPPED"] }
  })
}

resource "aws_cloudwatch_event_target" "ecs" {
  rule = aws_cloudwatch_event_rule.ecs.name
  arn  = aws_sns_topic.alerts.arn
}

resource "aws_cloudwatch_event_bus" "apps" {
  name = "more-apps"
}

# --- Secrets Manager ---------------------------------------------------------------------
resource "aws_secretsmanager_secret" "db" {
  name                    = "more/db"
  recovery_window_in_days = 0
}

resource "aws_secretsmanager_secret_version" "db" {
  secret_id     = aws_secretsmanager_secret.db.id
  secret_string = var.secret_value
}

# --- Kinesis and Lambda ------------------------------------------------------------------
resource "aws_kinesis_stream" "events" {
  name             = "more-events"
  shard_count      = 1
  retention_period = 24
}

resource "aws_lambda_function" "fn" {
  function_name    = "more-fn"
  role             = aws_iam_role.tasks.arn
  runtime          = "nodejs20.x"
  handler          = "index.handler"
  filename         = var.lambda_zip
  source_code_hash = filebase64sha256(var.lambda_zip)
  publish          = true
}

resource "aws_lambda_alias" "live" {
  name             = "live"
  function_name    = aws_lambda_function.fn.function_name
  function_version = aws_lambda_function.fn.version
}

resource "aws_lambda_permission" "events" {
  statement_id  = "AllowEventBridge"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.fn.function_name
  principal     = "events.amazonaws.com"
  source_arn    = aws_cloudwatch_event_rule.ecs.arn
}

resource "aws_lambda_event_source_mapping" "events" {
  event_source_arn  = aws_kinesis_stream.events.arn
  function_name     = aws_lambda_function.fn.arn
  starting_position = "LATEST"
  batch_size        = 100
}

resource "aws_lambda_function_url" "fn" {
  function_name      = aws_lambda_function.fn.function_name
  authorization_type = "AWS_IAM"
}

resource "aws_sns_topic_subscription" "fn" {
  topic_arn = aws_sns_topic.alerts.arn
  protocol  = "lambda"
  endpoint  = aws_lambda_function.fn.arn
}

# EventBridge Scheduler invoking the function every night.
resource "aws_scheduler_schedule" "nightly" {
  name                = "more-nightly"
  schedule_expression = "cron(0 2 * * ? *)"
  flexible_time_window {
    mode = "OFF"
  }
  target {
    arn      = aws_lambda_function.fn.arn
    role_arn = aws_iam_role.tasks.arn
  }
}

# --- S3 ----------------------------------------------------------------------------------
resource "aws_s3_bucket" "logs" {
  bucket = "more-logs"
}

# S3 writes server access logs only into a bucket whose policy lets the logging service in.
resource "aws_s3_bucket_policy" "logs" {
  bucket = aws_s3_bucket.logs.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "S3ServerAccessLogs"
      Effect    = "Allow"
      Principal = { Service = "logging.s3.amazonaws.com" }
      Action    = "s3:PutObject"
      Resource  = "${aws_s3_bucket.logs.arn}/*"
    }]
  })
}

resource "aws_s3_bucket" "site" {
  bucket = "more-site"
}

resource "aws_s3_bucket_cors_configuration" "site" {
  bucket = aws_s3_bucket.site.id
  cors_rule {
    allowed_methods = ["GET"]
    allowed_origins = ["https://example.com"]
    max_age_seconds = 300
  }
}

resource "aws_s3_bucket_logging" "site" {
  bucket        = aws_s3_bucket.site.id
  target_bucket = aws_s3_bucket.logs.id
  target_prefix = "site/"
  depends_on    = [aws_s3_bucket_policy.logs]
}

resource "aws_s3_bucket_lifecycle_configuration" "logs" {
  bucket = aws_s3_bucket.logs.id
  rule {
    id     = "expire"
    status = "Enabled"
    filter {}
    expiration {
      days = 90
    }
  }
}

resource "aws_s3_bucket_notification" "site" {
  bucket = aws_s3_bucket.site.id
  topic {
    topic_arn = aws_sns_topic.alerts.arn
    events    = ["s3:ObjectCreated:*"]
  }
}

# --- RDS ---------------------------------------------------------------------------------
resource "aws_db_subnet_group" "main" {
  name       = "more"
  subnet_ids = [data.aws_subnet.a.id, data.aws_subnet.b.id]
}

# No parameter: moto reads a group's parameters back empty (docs/development.md, moto quirks).
resource "aws_db_parameter_group" "pg" {
  name        = "more-pg16"
  family      = "postgres16"
  description = "more postgres 16"
}

# --- Cognito, ACM, SES -------------------------------------------------------------------
resource "aws_cognito_user_pool" "users" {
  name = "more-users"
  password_policy {
    minimum_length    = 12
    require_lowercase = true
    require_numbers   = true
    require_symbols   = true
    require_uppercase = true
  }
}

resource "aws_cognito_user_pool_client" "web" {
  name         = "web"
  user_pool_id = aws_cognito_user_pool.users.id
}

resource "aws_acm_certificate" "app" {
  domain_name       = "app.more.example.com"
  validation_method = "DNS"
}

resource "aws_ses_domain_identity" "mail" {
  domain = "more.example.com"
}

# --- Autoscaling -------------------------------------------------------------------------
resource "aws_launch_template" "web" {
  name          = "more-web"
  image_id      = "ami-12c6146b"
  instance_type = "t3.micro"
  iam_instance_profile {
    name = aws_iam_instance_profile.web.name
  }
  metadata_options {
    http_tokens = "required"
  }
}

resource "aws_autoscaling_group" "web" {
  name                = "more-web"
  min_size            = 0
  max_size            = 2
  desired_capacity    = 0
  vpc_zone_identifier = [data.aws_subnet.a.id, data.aws_subnet.b.id]
  launch_template {
    id      = aws_launch_template.web.id
    version = "$Latest"
  }
}

# --- Backup ------------------------------------------------------------------------------
resource "aws_backup_vault" "main" {
  name = "more"
}

resource "aws_backup_plan" "daily" {
  name = "more-daily"
  rule {
    rule_name         = "daily"
    target_vault_name = aws_backup_vault.main.name
    schedule          = "cron(0 3 * * ? *)"
    lifecycle {
      delete_after = 35
    }
  }
}

# --- WAFv2 -------------------------------------------------------------------------------
resource "aws_wafv2_web_acl" "app" {
  name  = "more-app"
  scope = "REGIONAL"
  default_action {
    allow {}
  }
  visibility_config {
    cloudwatch_metrics_enabled = false
    metric_name                = "more-app"
    sampled_requests_enabled   = false
  }
}

# --- ElastiCache -------------------------------------------------------------------------
resource "aws_elasticache_subnet_group" "main" {
  name       = "more"
  subnet_ids = [data.aws_subnet.a.id, data.aws_subnet.b.id]
}

# --- Route 53 ----------------------------------------------------------------------------
# Public: moto keeps a zone's VPC only when HostedZoneConfig.PrivateZone is sent, which the provider
# leaves out (AWS makes a zone private by its VPC), so a private zone reads back without it.
resource "aws_route53_zone" "main" {
  name = "more.example.com"
}

resource "aws_route53_record" "api" {
  zone_id = aws_route53_zone.main.zone_id
  name    = "api.more.example.com"
  type    = "CNAME"
  ttl     = 300
  records = ["backend.more.example.com"]
}

resource "aws_route53_record" "origin" {
  zone_id = aws_route53_zone.main.zone_id
  name    = "origin.more.example.com"
  type    = "A"
  ttl     = 60
  records = ["10.0.0.10"]
}

resource "aws_route53_record" "app" {
  zone_id = aws_route53_zone.main.zone_id
  name    = "app.more.example.com"
  type    = "A"
  alias {
    name                   = aws_route53_record.origin.fqdn
    zone_id                = aws_route53_zone.main.zone_id
    evaluate_target_health = false
  }
}

# --- CloudFront, EFS, SSM ------------------------------------------------------------------
resource "aws_cloudfront_distribution" "site" {
  enabled             = true
  wait_for_deployment = false
  origin {
    domain_name = aws_s3_bucket.site.bucket_regional_domain_name
    origin_id   = "site"
  }
  default_cache_behavior {
    allowed_methods        = ["GET", "HEAD"]
    cached_methods         = ["GET", "HEAD"]
    target_origin_id       = "site"
    viewer_protocol_policy = "redirect-to-https"
    forwarded_values {
      query_string = false
      cookies {
        forward = "none"
      }
    }
  }
  restrictions {
    geo_restriction {
      restriction_type = "none"
    }
  }
  viewer_certificate {
    cloudfront_default_certificate = true
  }
}

resource "aws_efs_file_system" "shared" {
  creation_token = "more-shared"
  encrypted      = true
}

resource "aws_ssm_document" "patch" {
  name          = "more-patch"
  document_type = "Command"
  content = jsonencode({
    schemaVersion = "2.2"
    description   = "patch"
    mainSteps = [{
      action = "aws:runShellScript"
      name   = "patch"
      inputs = { runCommand = ["yum -y update"] }
    }]
  })
}
