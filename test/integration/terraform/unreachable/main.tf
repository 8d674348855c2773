# The provider's S3 endpoint is a variable so the test can make it unreachable while the state
# backend still works: the AWS provider then reports the bucket "deleted outside Terraform" in an
# errored plan (DESIGN.md principle 3).
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

variable "s3_endpoint" {
  type    = string
  default = null
}

provider "aws" {
  region      = "eu-west-1"
  max_retries = 1
  endpoints {
    s3 = var.s3_endpoint
  }
}

resource "aws_s3_bucket" "archive" {
  bucket = "unreachable-archive"
}

resource "aws_s3_bucket_versioning" "archive" {
  bucket = aws_s3_bucket.archive.id
  versioning_configuration {
    status = "Enabled"
  }
}
